#pragma once
// The one slug of the probes: a name made safe for container names, metric labels and check
// entries. At the root of probes/ because the container, storage and network probes all name
// things with it and none of them should depend on another's folder for it.
#include <string>

namespace gpuqual::probes {

// Lower-case slug of `text` usable in container and metric names: [a-z0-9_-], at most 40
// characters, "x" when nothing is left.
std::string slug(const std::string& text);

}  // namespace gpuqual::probes
