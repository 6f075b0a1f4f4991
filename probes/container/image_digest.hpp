#pragma once
// The registry digest of the image a probe ran: what `docker image inspect` / the Engine API /
// podman report as RepoDigests ("repo@sha256:<manifest digest>"). A tag names an image today;
// the digest names the bytes that ran, so matrix rows of "validated images" stay true.
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace gpuqual::probes {

// RepoDigests of an image inspect object; empty when it has none (a locally built image).
std::vector<std::string> repo_digests_of(const nlohmann::json& inspect);

// The digest of `reference`'s repository among `digests` (Docker shortens docker.io/library/x to
// x, podman does not: both match), else the first one, else "". A reference that is already a
// digest ("repo@sha256:...") is its own answer.
std::string pick_repo_digest(const std::string& reference, const std::vector<std::string>& digests);

}  // namespace gpuqual::probes
