// A slice's identity is consistent (core/record/mig_identity.hpp, docs/mig.md "Inventory"): the
// record reader refuses two MIG devices with one UUID, and a profile that contradicts the
// instance's memory, placement or SMs, with one line naming the file, the field and the problem
// (exit 3 through the commands).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "cli_helpers.hpp"
#include "core/base/input_error.hpp"
#include "core/record/hardware_class.hpp"
#include "core/record/mig_profiles.hpp"
#include "core/record/record_json.hpp"
#include "core/record/record_reader.hpp"
#include "record_builders.hpp"

namespace gpuqual {
namespace {

// Two H100 80GB in MIG mode: GPU 0 as 3g.40gb + 2g.20gb + two 1g.10gb, GPU 1 as 7g.80gb, with
// the memory and SMs NVML gives them (nvidia-smi mig -lgip; tests/data/mig/h100-mixed-profiles.json).
RunRecord two_mig_gpus() {
  RunRecord r = testing::make_record(2);
  for (auto& g : r.gpus) g = testing::make_gpu(g.index, "NVIDIA H100 80GB HBM3", 81559ull << 20);
  r.hardware_class = derive_hardware_class(r.gpus);
  struct Gi {
    const char* profile;
    unsigned start, size, mib;
    int sms;
  };
  const std::vector<std::vector<Gi>> layout{{{"3g.40gb", 0, 4, 40192, 60},
                                             {"2g.20gb", 4, 2, 19968, 32},
                                             {"1g.10gb", 6, 1, 9984, 16},
                                             {"1g.10gb", 7, 1, 9984, 16}},
                                            {{"7g.80gb", 0, 8, 81152, 132}}};
  for (std::size_t g = 0; g < layout.size(); ++g) {
    MigState mig;
    mig.current = mig.pending = true;
    for (std::size_t i = 0; i < layout[g].size(); ++i) {
      const Gi& x = layout[g][i];
      MigGpuInstance gi;
      gi.id = static_cast<unsigned>(i + 1);
      gi.profile = x.profile;
      gi.placement_start = x.start;
      gi.placement_size = x.size;
      gi.memory_bytes = static_cast<std::uint64_t>(x.mib) << 20;
      gi.compute_instances.push_back(
          MigComputeInstance{0, x.profile, "MIG-" + std::to_string(g) + "-" + std::to_string(i), x.sms});
      mig.gpu_instances.push_back(gi);
    }
    r.gpus[g].mig = mig;
  }
  return r;
}

// The reader's message, or "(accepted)".
std::string read(const RunRecord& r) {
  try {
    StreamingRecordReader().parse(to_json(r).dump(), "node-a.json");
  } catch (const InputError& e) {
    return e.what();
  }
  return "(accepted)";
}

void expect_refused(const RunRecord& r, const std::string& field, const std::string& problem) {
  const std::string m = read(r);
  EXPECT_EQ(m.rfind("node-a.json", 0), 0u) << m;
  EXPECT_NE(m.find(field), std::string::npos) << m;
  EXPECT_NE(m.find(problem), std::string::npos) << m;
  EXPECT_EQ(m.find('\n'), std::string::npos) << m;
}

TEST(MigIdentity, AConsistentLayoutIsRead) { EXPECT_EQ(read(two_mig_gpus()), "(accepted)"); }

TEST(MigIdentity, TwoInstancesNamingOneMigUuidAreRefused) {
  RunRecord across = two_mig_gpus();
  across.gpus[1].mig->gpu_instances[0].compute_instances[0].uuid = "MIG-0-2";
  expect_refused(across, "$.gpus[1].mig.gpu_instances[0].compute_instances[0].uuid",
                 "MIG-0-2 is also the MIG device at $.gpus[0].mig.gpu_instances[2].compute_instances[0]");
  RunRecord within = two_mig_gpus();
  within.gpus[0].mig->gpu_instances[2].compute_instances[0].uuid = "MIG-4f1c2a9e";
  within.gpus[0].mig->gpu_instances[3].compute_instances[0].uuid = "MIG-4F1C2A9E";  // case makes no other
  expect_refused(within, "$.gpus[0].mig.gpu_instances[3].compute_instances[0].uuid", "cannot share one UUID");
  RunRecord ids = two_mig_gpus();
  ids.gpus[0].mig->gpu_instances[1].id = 1;
  expect_refused(ids, "$.gpus[0].mig.gpu_instances[1].id", "GPU 0 has two GPU instances with id 1");
}

TEST(MigIdentity, AProfileThatContradictsTheMemoryIsRefused) {
  RunRecord r = two_mig_gpus();
  r.gpus[0].mig->gpu_instances[2].memory_bytes = 19968ull << 20;  // a 1g.10gb with 19.5 GiB
  expect_refused(r, "$.gpus[0].mig.gpu_instances[2].memory_bytes",
                 "profile 1g.10gb names 10 GB, but the GPU instance has 19.50 GiB");
  RunRecord small = two_mig_gpus();
  small.gpus[1].mig->gpu_instances[0].memory_bytes = 9984ull << 20;  // a 7g.80gb with 9.75 GiB
  expect_refused(small, "$.gpus[1].mig.gpu_instances[0].memory_bytes", "names 80 GB");
}

TEST(MigIdentity, AProfileTheGpuDoesNotHaveOrAnotherPlacementIsRefused) {
  RunRecord foreign = two_mig_gpus();
  foreign.gpus[0].mig->gpu_instances[2].profile = "1g.5gb";  // an A100 40GB's
  foreign.gpus[0].mig->gpu_instances[2].compute_instances[0].profile = "1g.5gb";
  foreign.gpus[0].mig->gpu_instances[2].memory_bytes = 4864ull << 20;
  expect_refused(foreign, "$.gpus[0].mig.gpu_instances[2].profile",
                 "1g.5gb is no MIG profile of h100-sxm-80gb");
  RunRecord placed = two_mig_gpus();
  placed.gpus[0].mig->gpu_instances[0].placement_size = 3;  // a 3g.40gb spans 4 memory slices
  expect_refused(placed, "$.gpus[0].mig.gpu_instances[0].placement.size",
                 "profile 3g.40gb spans 4 of 8 memory slices of h100-sxm-80gb, but the placement has 3");
}

TEST(MigIdentity, AComputeInstanceThatContradictsItsSlicesIsRefused) {
  RunRecord sms = two_mig_gpus();
  sms.gpus[0].mig->gpu_instances[3].compute_instances[0].sm_count = 60;  // a 1g with a 3g's SMs
  expect_refused(sms, "$.gpus[0].mig.gpu_instances[3].compute_instances[0].sm_count",
                 "1g.10gb has 60 SMs, but 1 of 7 compute slices of h100-sxm-80gb (132 SMs) is about 19");
  RunRecord whole = two_mig_gpus();
  whole.gpus[1].mig->gpu_instances[0].compute_instances[0].sm_count = 16;
  expect_refused(whole, "sm_count", "7g.80gb has 16 SMs");
  RunRecord other = two_mig_gpus();
  other.gpus[0].mig->gpu_instances[0].compute_instances[0].profile = "1c.2g.20gb";
  expect_refused(other, "$.gpus[0].mig.gpu_instances[0].compute_instances[0].profile",
                 "compute instance profile 1c.2g.20gb is not one of its GPU instance's 3g.40gb");
  // A compute instance of one slice of the 3g: about a third of its SMs.
  RunRecord part = two_mig_gpus();
  part.gpus[0].mig->gpu_instances[0].compute_instances[0].profile = "1c.3g.40gb";
  part.gpus[0].mig->gpu_instances[0].compute_instances[0].sm_count = 20;
  EXPECT_EQ(read(part), "(accepted)");
}

// A GPU whose profiles gpuqual does not know is still held to what its profile names.
TEST(MigIdentity, AnUnknownParentIsHeldToTheNamedMemory) {
  RunRecord r = two_mig_gpus();
  for (auto& g : r.gpus) {
    g.name = "NVIDIA B200";
    g.memory_bytes = 183359ull << 20;
  }
  r.hardware_class = derive_hardware_class(r.gpus);
  r.gpus[1].mig->gpu_instances[0].profile = "7g.180gb";
  r.gpus[1].mig->gpu_instances[0].compute_instances[0].profile = "7g.180gb";
  r.gpus[1].mig->gpu_instances[0].memory_bytes = 178ull << 30;
  EXPECT_EQ(read(r), "(accepted)");
  r.gpus[1].mig->gpu_instances[0].memory_bytes = 80ull << 30;
  expect_refused(r, "memory_bytes", "profile 7g.180gb names 180 GB, but the GPU instance has 80.00 GiB");
}

// Through the command: `gpuqual compare` of such a record is exit 3 with one line naming the file.
TEST(MigIdentity, CompareOfAnInconsistentRecordIsExit3) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("gpuqual-mig-identity-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  RunRecord r = two_mig_gpus();
  r.gpus[1].mig->gpu_instances[0].compute_instances[0].uuid = "MIG-0-0";
  const auto path = dir / "dup.json";
  std::ofstream(path) << to_json(r).dump();
  const testing::CliRun run = testing::run_cli("compare " + testing::shell_quote(path.string()), dir);
  EXPECT_EQ(run.code, 3) << run.out << run.err;
  EXPECT_NE(run.err.find(path.string()), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("two MIG devices cannot share one UUID"), std::string::npos) << run.err;
  std::filesystem::remove_all(dir);
}

// The profile table: a profile's share of a known parent, and the slice class of a GFD label.
TEST(MigProfiles, TheTableAndTheSingleStrategyProductLabel) {
  const MigParentSpec* h100 = mig_parent_spec("h100-sxm-80gb");
  ASSERT_NE(h100, nullptr);
  ASSERT_NE(h100->find("3g.40gb"), nullptr);
  EXPECT_EQ(h100->find("3g.40gb")->memory_slices, 4);
  EXPECT_NE(h100->find("1g.10gb+me"), nullptr);
  EXPECT_EQ(h100->find("1g.5gb"), nullptr);
  EXPECT_EQ(mig_parent_spec("l40s-pcie-48gb"), nullptr);
  EXPECT_EQ(mig_slice_class_from_product_label("NVIDIA-H100-80GB-HBM3-MIG-1g.10gb"),
            "h100-sxm-80gb-mig-1g.10gb");
  // 1g.10gb is 2/8 of an A100 40GB and 1/8 of an 80GB one: the label's product decides.
  EXPECT_EQ(mig_slice_class_from_product_label("NVIDIA-A100-SXM4-40GB-MIG-1g.10gb"),
            "a100-sxm-40gb-mig-1g.10gb");
  EXPECT_EQ(mig_slice_class_from_product_label("NVIDIA-A100-SXM4-80GB-MIG-1g.10gb"),
            "a100-sxm-80gb-mig-1g.10gb");
  EXPECT_EQ(mig_slice_class_from_product_label("A100-SXM4-40GB-MIG-1g.5gb"), "a100-sxm-40gb-mig-1g.5gb");
  EXPECT_EQ(mig_slice_class_from_product_label("NVIDIA-H200-MIG-1g.18gb"), "h200-sxm-141gb-mig-1g.18gb");
  EXPECT_EQ(mig_slice_class_from_product_label("NVIDIA-H100-80GB-HBM3"), std::nullopt);
  EXPECT_EQ(mig_slice_class_from_product_label("NVIDIA-H100-80GB-HBM3-MIG-INVALID"), std::nullopt);
}

}  // namespace
}  // namespace gpuqual
