// The GPU tests' class floors (device/measure_class_floors.hpp): H200's row as the issue and the
// reference numbers give it, found from what CUDA reports for an H200; other classes have none.
#include <gtest/gtest.h>

#include "device/measure_class_floors.hpp"

namespace gpuqual {
namespace {

TEST(ClassFloors, H200FloorsCatchARealShortfall) {
  const auto f = class_floors("h200-sxm-141gb");
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->gemm_bf16_tflops, 600);
  EXPECT_EQ(f->hbm_copy_gbps, 3500);
  EXPECT_EQ(f->pcie_gbps, 40);
  // Under what a healthy H200 measures elsewhere (reference-numbers.md), so a healthy part passes.
  EXPECT_LT(f->gemm_bf16_tflops, 769);
  EXPECT_LT(f->hbm_copy_gbps, 4300);
  EXPECT_LT(f->pcie_gbps, 55);
}

TEST(ClassFloors, TheH200IsFoundFromWhatCudaReports) {
  // cudaDeviceProp.name and totalGlobalMem of an H200 (143771 MiB, as nvidia-smi showed there).
  EXPECT_EQ(gpu_class_slug("NVIDIA H200", 143771ULL << 20), "h200-sxm-141gb");
  EXPECT_TRUE(class_floors(gpu_class_slug("NVIDIA H200", 143771ULL << 20)).has_value());
}

TEST(ClassFloors, OtherClassesHaveNoFloor) {
  EXPECT_FALSE(class_floors("h100-sxm-80gb").has_value());
  EXPECT_FALSE(class_floors("unknown").has_value());
  EXPECT_FALSE(class_floors("").has_value());
}

}  // namespace
}  // namespace gpuqual
