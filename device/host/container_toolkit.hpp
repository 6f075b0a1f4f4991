#pragma once
// The NVIDIA container stack of the node: the Container Toolkit's version (its CLIs'
// `--version`, bounded subprocesses, no daemon contacted) and the CDI specs present
// (Container Device Interface spec dirs /etc/cdi and /var/run/cdi, per the CDI specification).
#include <string>
#include <vector>

#include "core/record/stack_inventory.hpp"

namespace gpuqual {

// nvidia-ctk --version ("NVIDIA Container Toolkit CLI version 1.17.4"), else
// nvidia-container-cli --version ("cli-version: 1.17.4"); null when neither is on `path_env`
// (inside a container the host's toolkit is not visible).
StackFact read_container_toolkit(const std::string& path_env);

// "kind=path" of every *.yaml / *.yml / *.json in `dirs`, sorted and comma-separated ("" when
// there is none); a spec whose `kind` cannot be read shows "(unreadable)=path".
StackFact read_cdi_specs(const std::vector<std::string>& dirs = {"/etc/cdi", "/var/run/cdi"});

}  // namespace gpuqual
