#include <string_view>

#include "core/compat/cuda_compat_reexec.hpp"
#include "runner/cli/cli.hpp"

int main(int argc, char** argv) {
  // The commands that load the CUDA runtime choose their user-mode driver first: the host's, or
  // the forward-compat one (core/compat/cuda_compat_reexec.hpp). Judging commands never touch CUDA.
  if (argc > 1) {
    const std::string_view cmd = argv[1];
    if (cmd == "run" || cmd == "inventory" || cmd == "nccl")
      gpuqual::reexec_with_forward_compat_if_eligible(argv);
  }
  return gpuqual::cli_main(argc, argv);
}
