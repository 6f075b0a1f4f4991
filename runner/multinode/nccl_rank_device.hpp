#pragma once
// Which CUDA device a rank of `gpuqual nccl` drives under mpirun. No MPI and no CUDA here: the
// rule is tested on the CPU (tests/unit/test_nccl_rank_device.cpp).
//
// Launchers bind GPUs to ranks in two ways. Either every rank on a node sees all the node's GPUs
// and takes the one of its node-local rank, or the launcher (a wrapper that sets
// CUDA_VISIBLE_DEVICES per rank, Slurm's --gpus-per-task, a Kubernetes pod per rank) gives each
// rank its own GPU, which CUDA then numbers 0 in that process: taking the local rank there would
// name a device that does not exist in the process (every rank but the first would fail).
#include <optional>
#include <string>

namespace gpuqual {

struct RankDevice {
  int device = -1;  // the CUDA device index in this process; -1 when none fits
  std::string why;  // how it was chosen, or why none fits
};

// `visible`: the devices CUDA counts in this process; `local_rank`/`local_size`: this rank among
// the node's processes; `cuda_visible_devices`: the variable's value when set.
//  - as many devices as the node's ranks, or more: the local rank's device;
//  - exactly one device, bound to this rank by CUDA_VISIBLE_DEVICES naming one GPU: device 0;
//  - anything else (more ranks than devices with no per-rank binding: ranks would share a GPU):
//    none, with why.
RankDevice choose_rank_device(int local_rank, int local_size, int visible,
                              const std::optional<std::string>& cuda_visible_devices);

}  // namespace gpuqual
