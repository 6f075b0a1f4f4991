#pragma once
// Names the container probe gives and accepts. Container names are made from the run id and
// the probe name, so a container left behind can be traced to its run (and removed by label).
// Image references are passed to the runtime as one argv element or inside a URL path, so they
// are restricted to the characters an image reference can have.
#include <string>

#include "probes/slug.hpp"

namespace gpuqual::probes {

// [A-Za-z0-9][A-Za-z0-9_.-]* up to 128 characters (Docker's and Podman's rule).
bool is_valid_container_name(const std::string& name);
// registry/repo[:tag][@sha256:digest], characters [A-Za-z0-9._/:@-], no "..", not starting
// with '-' (never mistaken for a flag), at most 512 characters.
bool is_valid_image_reference(const std::string& image);
// Throw std::invalid_argument naming the value.
void require_container_name(const std::string& name);
void require_image_reference(const std::string& image);
// True when `image` has neither a tag nor a digest (the API would pull every tag).
bool image_tag_missing(const std::string& image);

// gpuqual-<run slug>-<probe slug>-<attempt>; always a valid container name.
std::string container_name(const std::string& run_id, const std::string& probe, int attempt);
// A run id for commands run outside `gpuqual run`: <hostname>-<pid>-<time>-<random>.
std::string local_run_id();

}  // namespace gpuqual::probes
