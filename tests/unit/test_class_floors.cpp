// The GPU tests' class floors (tests/support/class_floors.hpp): read from the shipped datasheet
// floors baselines/floors/<class>.yaml, the file `gpuqual compare --baseline auto` judges a record
// of the class against, so there is one floor table. The H100 and the H200 the GPU window runs on
// are found from what CUDA reports; their PCIe floors are provisional in a virtual machine only.
#include <gtest/gtest.h>

#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "core/base/input_error.hpp"
#include "tests/support/class_floors.hpp"

namespace gpuqual {
namespace {

namespace fs = std::filesystem;
const std::string kBaselines = std::string(GPUQUAL_SOURCE_DIR) + "/baselines";

// What a healthy part measures (docs/performance.md, the predicted H200 and H100 figures): each floor
// sits under it, so a healthy part passes.
struct Healthy {
  double bf16_tflops, copy_gbps, pcie_gbps;
};

void expect_floors_catch_a_broken_part(const ClassFloors& f, const Healthy& healthy) {
  const double bf16 = f.of("gemm.bf16.tflops").value_or(0);
  const double copy = f.of("hbm.copy.gbps").value_or(0);
  EXPECT_GT(bf16, 0);
  EXPECT_GT(copy, 0);
  for (const char* pcie : {"pcie.h2d.gbps", "pcie.d2h.gbps"}) {
    ASSERT_TRUE(f.of(pcie).has_value()) << pcie;
    EXPECT_LT(*f.of(pcie), healthy.pcie_gbps) << pcie;
    EXPECT_GT(*f.of(pcie), healthy.pcie_gbps / 2) << pcie << ": a link at half its rate is below";
  }
  EXPECT_LT(bf16, healthy.bf16_tflops);
  EXPECT_GT(bf16, healthy.bf16_tflops / 3) << "a GEMM at a third of its rate is below";
  EXPECT_LT(copy, healthy.copy_gbps);
  EXPECT_GT(copy, healthy.copy_gbps / 2) << "half the memory bandwidth is below";
}

// Each `direction: higher` metric of the floors file as expected x (1 - tolerance), read here
// with yaml-cpp, not through load_baseline: the numbers are the file's, never restated here.
std::map<std::string, double> floors_in_file(const std::string& slug) {
  const YAML::Node doc = YAML::LoadFile(kBaselines + "/floors/" + slug + ".yaml");
  std::map<std::string, double> floors;
  for (const auto& m : doc["metrics"]) {
    if (m["direction"].as<std::string>() != "higher") continue;
    floors[m["name"].as<std::string>()] = m["expected"].as<double>() * (1 - m["tolerance"].as<double>());
  }
  return floors;
}

void expect_the_files_floors(const std::string& slug) {
  const auto f = class_floors(slug, kBaselines, false);
  ASSERT_TRUE(f.has_value()) << slug;
  EXPECT_EQ(fs::path(f->source), fs::path(kBaselines) / "floors" / (slug + ".yaml"));
  const auto file = floors_in_file(slug);
  EXPECT_EQ(f->floor.size(), file.size()) << slug;
  for (const auto& [metric, floor] : file) {
    ASSERT_TRUE(f->of(metric).has_value()) << slug << " " << metric;
    EXPECT_DOUBLE_EQ(*f->of(metric), floor) << slug << " " << metric;
  }
}

TEST(ClassFloors, H200FloorsComeFromTheShippedFloorsFile) {
  expect_the_files_floors("h200-sxm-141gb");
  const auto f = class_floors("h200-sxm-141gb", kBaselines, false);
  ASSERT_TRUE(f.has_value());
  expect_floors_catch_a_broken_part(*f, {769, 4300, 55});
}

TEST(ClassFloors, H100FloorsComeFromTheShippedFloorsFile) {
  expect_the_files_floors("h100-sxm-80gb");
  const auto f = class_floors("h100-sxm-80gb", kBaselines, false);
  ASSERT_TRUE(f.has_value());
  // H100 SXM: BF16 about 795 TFLOP/s, device copy 2.5 to 3.0 TB/s (the lower, so the floor is
  // under every healthy figure), PCIe Gen5 copy-engine about 55 GB/s.
  expect_floors_catch_a_broken_part(*f, {795, 2500, 55});
}

// The names CUDA gives the lent H100 and H200 (cudaDeviceProp.name, totalGlobalMem a little
// under what nvidia-smi shows) name the classes whose floors files ship.
TEST(ClassFloors, TheH100AndTheH200AreFoundFromWhatCudaReports) {
  EXPECT_EQ(gpu_class_slug("NVIDIA H100 80GB HBM3", 81559ULL << 20), "h100-sxm-80gb");
  EXPECT_EQ(gpu_class_slug("NVIDIA H100 80GB HBM3", 85045477376ULL), "h100-sxm-80gb");
  EXPECT_EQ(gpu_class_slug("NVIDIA H200", 143771ULL << 20), "h200-sxm-141gb");
  for (const auto& [name, bytes] :
       {std::pair<std::string, std::size_t>{"NVIDIA H100 80GB HBM3", 81559ULL << 20},
        {"NVIDIA H200", 143771ULL << 20}}) {
    EXPECT_TRUE(class_floors(gpu_class_slug(name, bytes), kBaselines, false).has_value()) << name;
  }
}

TEST(ClassFloors, ThePcieFloorIsProvisionalInAVirtualMachineOnly) {
  const auto vm = class_floors("h100-sxm-80gb", kBaselines, true);
  ASSERT_TRUE(vm.has_value());
  EXPECT_NE(vm->provisional("pcie.h2d.gbps").find("virtual machine"), std::string::npos);
  EXPECT_NE(vm->provisional("pcie.d2h.gbps"), "");
  EXPECT_EQ(vm->provisional("gemm.bf16.tflops"), "");
  EXPECT_EQ(vm->provisional("hbm.copy.gbps"), "");
  const auto metal = class_floors("h100-sxm-80gb", kBaselines, false);
  ASSERT_TRUE(metal.has_value());
  EXPECT_EQ(metal->provisional("pcie.h2d.gbps"), "");

  const double pcie = *vm->of("pcie.h2d.gbps");
  EXPECT_EQ(check_floor(pcie - 2, pcie, vm->provisional("pcie.h2d.gbps")), FloorCheck::below_provisional);
  EXPECT_EQ(check_floor(pcie - 2, pcie, metal->provisional("pcie.h2d.gbps")), FloorCheck::below);
  EXPECT_EQ(check_floor(pcie, pcie, vm->provisional("pcie.h2d.gbps")), FloorCheck::meets);
  const double bf16 = *vm->of("gemm.bf16.tflops");
  EXPECT_EQ(check_floor(bf16 - 1, bf16, vm->provisional("gemm.bf16.tflops")), FloorCheck::below);
}

TEST(ClassFloors, AVirtualMachineIsKnownByTheHypervisorCpuFlag) {
  EXPECT_TRUE(cpuinfo_says_hypervisor("processor\t: 0\nflags\t\t: fpu vme de hypervisor lahf_lm\n"));
  EXPECT_TRUE(cpuinfo_says_hypervisor("flags\t\t: fpu\nflags\t\t: sse hypervisor"));
  EXPECT_FALSE(cpuinfo_says_hypervisor("processor\t: 0\nflags\t\t: fpu vme de pse tsc msr\n"));
  EXPECT_FALSE(cpuinfo_says_hypervisor("model name\t: hypervisor\nflags\t\t: fpu hypervisorx\n"));
  EXPECT_FALSE(cpuinfo_says_hypervisor(""));
}

TEST(ClassFloors, EveryShippedFloorsFileGivesFloors) {
  int files = 0;
  for (const auto& e : fs::directory_iterator(fs::path(kBaselines) / "floors")) {
    if (e.path().extension() != ".yaml") continue;
    const std::string slug = e.path().stem().string();
    expect_the_files_floors(slug);
    const auto f = class_floors(slug, kBaselines, false);
    ASSERT_TRUE(f.has_value()) << slug;
    EXPECT_FALSE(f->floor.empty()) << slug;
    for (const auto& [metric, floor] : f->floor) EXPECT_GT(floor, 0) << slug << " " << metric;
    ++files;
  }
  EXPECT_GT(files, 0);
}

TEST(ClassFloors, ClassesWithoutAFloorsFileHaveNone) {
  EXPECT_FALSE(class_floors("h100-nvl-94gb", kBaselines, false).has_value());
  EXPECT_FALSE(class_floors("unknown", kBaselines, false).has_value());
  EXPECT_FALSE(class_floors("", kBaselines, false).has_value());
  EXPECT_FALSE(class_floors("../h200-sxm-141gb", kBaselines, false).has_value());
}

TEST(ClassFloors, ABrokenFloorsFileIsAnInputErrorNamingIt) {
  const fs::path dir = fs::path(::testing::TempDir()) / "class-floors-broken";
  fs::create_directories(dir / "floors");
  std::ofstream(dir / "floors" / "h100-sxm-80gb.yaml") << "schema: gpuqual.baseline/v1\nmetrics: [1, 2\n";
  try {
    (void)class_floors("h100-sxm-80gb", dir.string(), false);
    FAIL() << "a broken floors file loaded";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("h100-sxm-80gb.yaml"), std::string::npos) << e.what();
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace gpuqual
