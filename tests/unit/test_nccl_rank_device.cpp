// `gpuqual nccl` under mpirun: which CUDA device a rank drives (runner/multinode/nccl_rank_device.hpp).
// A rank the launcher gave one GPU through CUDA_VISIBLE_DEVICES sees it as device 0, whatever its
// node-local rank; ranks that see every GPU of the node take their node-local rank's.
#include <gtest/gtest.h>

#include "runner/multinode/nccl_rank_device.hpp"

namespace gpuqual {
namespace {

TEST(NcclRankDevice, ARankGivenOneGpuByCudaVisibleDevicesUsesDeviceZero) {
  for (int local_rank = 0; local_rank < 8; ++local_rank) {
    const RankDevice d = choose_rank_device(local_rank, 8, 1, std::to_string(local_rank));
    EXPECT_EQ(d.device, 0) << "local rank " << local_rank << ": " << d.why;
    EXPECT_NE(d.why.find("CUDA_VISIBLE_DEVICES=" + std::to_string(local_rank)), std::string::npos) << d.why;
  }
  EXPECT_EQ(choose_rank_device(3, 4, 1, "GPU-8a0d6e52-13b7-4f2c-9e8a-b4c61f07d3e9").device, 0);
}

TEST(NcclRankDevice, RanksThatSeeEveryGpuTakeTheirNodeLocalRanks) {
  for (int local_rank = 0; local_rank < 8; ++local_rank) {
    EXPECT_EQ(choose_rank_device(local_rank, 8, 8, std::nullopt).device, local_rank);
    EXPECT_EQ(choose_rank_device(local_rank, 8, 8, "0,1,2,3,4,5,6,7").device, local_rank);
  }
  EXPECT_EQ(choose_rank_device(1, 2, 8, std::nullopt).device, 1);  // fewer ranks than GPUs
  EXPECT_EQ(choose_rank_device(0, 1, 1, std::nullopt).device, 0);  // one rank, one GPU
}

TEST(NcclRankDevice, MoreRanksThanGpusWithoutAPerRankBindingHasNoDevice) {
  // Two ranks on a one-GPU node with nothing binding them would share the GPU.
  const RankDevice shared = choose_rank_device(1, 2, 1, std::nullopt);
  EXPECT_EQ(shared.device, -1);
  EXPECT_NE(shared.why.find("start one rank per GPU"), std::string::npos) << shared.why;
  // Two GPUs given to each of four ranks: which one is this rank's is not known.
  const RankDevice pairs = choose_rank_device(3, 4, 2, "2,3");
  EXPECT_EQ(pairs.device, -1);
  EXPECT_NE(pairs.why.find("CUDA_VISIBLE_DEVICES=2,3"), std::string::npos) << pairs.why;
  EXPECT_EQ(choose_rank_device(0, 1, 0, "").device, -1);
  EXPECT_EQ(choose_rank_device(2, 4, 1, " ").device, -1);  // a blank variable binds nothing
}

}  // namespace
}  // namespace gpuqual
