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

// The first window's machine is a microVM with the GPU passed through: its PCIe figures are
// recorded against the floor, which stays provisional until measured there.
TEST(ClassFloors, TheH200PcieFloorIsProvisionalAndOnlyMarksAShortfall) {
  const auto f = class_floors("h200-sxm-141gb");
  ASSERT_TRUE(f.has_value());
  EXPECT_NE(f->pcie_provisional.find("microVM"), std::string_view::npos);
  EXPECT_EQ(check_floor(33, f->pcie_gbps, f->pcie_provisional), FloorCheck::below_provisional);
  EXPECT_EQ(check_floor(52, f->pcie_gbps, f->pcie_provisional), FloorCheck::meets);
  EXPECT_EQ(check_floor(40, f->pcie_gbps, f->pcie_provisional), FloorCheck::meets);
  EXPECT_EQ(check_floor(512, f->gemm_bf16_tflops, ""), FloorCheck::below);  // a firm floor fails
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
