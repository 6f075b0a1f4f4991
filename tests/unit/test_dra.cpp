// The `dra` check's rules (core/rules/dra.hpp) and the check itself, on ResourceSlice,
// DeviceClass and ComputeDomain objects in the shapes NVIDIA's DRA driver and Kubernetes publish
// (tests/data/dra/README.md cites each).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>

#include "core/base/input_error.hpp"
#include "core/base/json_input.hpp"
#include "core/judge/diff.hpp"
#include "core/rules/dra.hpp"
#include "core/verdict/skip_acceptance.hpp"
#include "suites/check.hpp"
#include "suites/check_context.hpp"
#include "test_diff_fixtures.hpp"

namespace gpuqual {
namespace {

const std::string kData = std::string(GPUQUAL_TEST_DATA) + "/dra/";
const std::string kSlices = kData + "resourceslices-h100x2-mig.json";
const std::string kNoDraGroups = kData + "apigroups-no-dra.json";

nlohmann::json slices_json() { return read_json_file(kSlices); }

// The node the example slices describe: GPU 0 whole, GPU 1 in MIG mode with two 1g.10gb devices.
std::vector<GpuInfo> node_a_gpus() {
  GpuInfo g0;
  g0.index = 0;
  g0.name = "NVIDIA H100 80GB HBM3";
  g0.uuid = "GPU-4cf8db2d-06c0-7d70-1a51-e59b25b2c16c";
  GpuInfo g1 = g0;
  g1.index = 1;
  g1.uuid = "GPU-8f3b7a6e-2d1c-4b5a-9e8f-1a2b3c4d5e6f";
  MigState mig;
  mig.current = mig.pending = true;
  MigGpuInstance gi;
  gi.profile = "1g.10gb";
  gi.compute_instances.push_back({0, "1g.10gb", "MIG-fdfd2afa-5cbd-5d1d-b1ae-6f0e13cc0ff8", 16});
  mig.gpu_instances.push_back(gi);
  gi.compute_instances = {{0, "1g.10gb", "MIG-0a6e6a9c-3f0b-5e51-8d43-2b7d9c1e4f21", 16}};
  mig.gpu_instances.push_back(gi);
  g1.mig = mig;
  return {g0, g1};
}

std::vector<std::string> codes(const std::vector<Finding>& findings) {
  std::vector<std::string> out;
  for (const auto& f : findings) out.push_back(f.code);
  return out;
}

TEST(DraRules, ParsesTheDriversSliceClassesAndComputeDomain) {
  const DraObjects o = parse_dra_objects(slices_json(), kSlices);
  ASSERT_EQ(o.slices.size(), 1u);
  EXPECT_EQ(o.slices[0].driver, "gpu.nvidia.com");
  EXPECT_EQ(o.slices[0].node, "node-a");
  ASSERT_EQ(o.slices[0].devices.size(), 3u);
  const DraDevice& gpu = o.slices[0].devices[0];
  EXPECT_EQ(gpu.type, "gpu");
  EXPECT_EQ(gpu.uuid, "GPU-4cf8db2d-06c0-7d70-1a51-e59b25b2c16c");
  EXPECT_EQ(gpu.product, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(gpu.driver_version, "570.133.20");
  EXPECT_EQ(o.slices[0].devices[1].type, "mig");
  EXPECT_EQ(o.slices[0].devices[1].parent_uuid, "GPU-8f3b7a6e-2d1c-4b5a-9e8f-1a2b3c4d5e6f");
  EXPECT_EQ(o.device_classes, (std::vector<std::string>{"gpu.nvidia.com", "mig.nvidia.com"}));
  ASSERT_EQ(o.compute_domains.size(), 1u);
  EXPECT_EQ(o.compute_domains[0].status, "Ready");
  EXPECT_TRUE(dra_driver_installed(o));
}

TEST(DraRules, MatchingSlicesHaveNoFinding) {
  const DraObjects o = parse_dra_objects(slices_json(), kSlices);
  EXPECT_TRUE(judge_dra(o, "node-a", node_a_gpus(), "570.133.20").empty());
}

TEST(DraRules, ASliceFromBeforeADriverUpgradeIsStale) {
  const DraObjects o = parse_dra_objects(slices_json(), kSlices);
  const auto f = judge_dra(o, "node-a", node_a_gpus(), "575.57.08");
  EXPECT_EQ(codes(f), std::vector<std::string>(3, "dra.driver_version_mismatch"));
  EXPECT_EQ(f[0].gpu, 0);
}

TEST(DraRules, AnEmptyOrMissingSliceFails) {
  DraObjects o = parse_dra_objects(slices_json(), kSlices);
  EXPECT_EQ(codes(judge_dra(o, "node-b", node_a_gpus(), "570.133.20")),
            std::vector<std::string>{"dra.slice_missing"});
  o.slices[0].devices.clear();
  EXPECT_EQ(codes(judge_dra(o, "node-a", node_a_gpus(), "570.133.20")),
            std::vector<std::string>{"dra.slice_empty"});
}

TEST(DraRules, OnlyThePoolsNewestGenerationCounts) {
  DraObjects o = parse_dra_objects(slices_json(), kSlices);
  DraSlice newer = o.slices[0];
  newer.generation = 2;
  newer.devices.clear();
  o.slices.push_back(newer);  // re-published empty after an upgrade: the old one no longer counts
  EXPECT_EQ(node_slices(o, "node-a").size(), 1u);
  EXPECT_EQ(codes(judge_dra(o, "node-a", node_a_gpus(), "570.133.20")),
            std::vector<std::string>{"dra.slice_empty"});
}

TEST(DraRules, EveryGpuAndMigDeviceOfTheRecordMustBePublished) {
  const DraObjects o = parse_dra_objects(slices_json(), kSlices);
  auto gpus = node_a_gpus();
  gpus[1].mig->gpu_instances.pop_back();  // the node lost a MIG device the slice still lists
  GpuInfo extra = gpus[0];
  extra.index = 2;
  extra.uuid = "GPU-00000000-0000-0000-0000-000000000002";
  gpus.push_back(extra);
  const auto f = judge_dra(o, "node-a", gpus, "570.133.20");
  EXPECT_EQ(codes(f), (std::vector<std::string>{"dra.gpu_unpublished", "dra.device_unknown"}));
  EXPECT_EQ(f[0].gpu, 2);
}

TEST(DraRules, MigDevicesTheRecordCouldNotListAreNotJudged) {
  const DraObjects o = parse_dra_objects(slices_json(), kSlices);
  auto gpus = node_a_gpus();
  gpus[1].mig->gpu_instances.clear();
  EXPECT_EQ(codes(judge_dra(o, "node-a", gpus, "570.133.20")),
            (std::vector<std::string>{"dra.device_unknown", "dra.device_unknown"}));
  gpus[1].mig->unread = "NVML_ERROR_NOT_SUPPORTED";
  EXPECT_TRUE(judge_dra(o, "node-a", gpus, "570.133.20").empty());
}

TEST(DraRules, AProductThatDiffersIsAFinding) {
  const DraObjects o = parse_dra_objects(slices_json(), kSlices);
  auto gpus = node_a_gpus();
  gpus[0].name = "NVIDIA H200";
  EXPECT_EQ(codes(judge_dra(o, "node-a", gpus, "570.133.20")),
            std::vector<std::string>{"dra.product_mismatch"});
}

TEST(DraRules, DeviceClassesAndComputeDomains) {
  DraObjects o = parse_dra_objects(slices_json(), kSlices);
  o.device_classes = {"gpu.nvidia.com"};
  o.compute_domains[0].nodes[0].second = "NotReady";
  EXPECT_EQ(codes(judge_dra(o, "node-a", node_a_gpus(), "570.133.20")),
            (std::vector<std::string>{"dra.device_class_missing", "dra.compute_domain_not_ready"}));
  // Without MIG in use, mig.nvidia.com is not needed; another node's domain is not this node's.
  auto gpus = node_a_gpus();
  gpus.pop_back();
  o.slices[0].devices.resize(1);
  o.compute_domains[0].nodes[0].first = "node-b";
  EXPECT_TRUE(judge_dra(o, "node-a", gpus, "570.133.20").empty());
}

TEST(DraRules, ApiGroupsVersionsAndPath) {
  EXPECT_FALSE(api_groups_serve_dra(read_json_file(kNoDraGroups), kNoDraGroups));
  nlohmann::json groups = read_json_file(kNoDraGroups);
  groups["groups"].push_back({{"name", "resource.k8s.io"}});
  EXPECT_TRUE(api_groups_serve_dra(groups, "x"));
  EXPECT_THROW(api_groups_serve_dra(nlohmann::json{{"kind", "List"}}, "x"), InputError);
  EXPECT_TRUE(driver_versions_equal("535.104.05", "535.104.5"));
  EXPECT_TRUE(driver_versions_equal("570.133.20", "570.133.20.0"));
  EXPECT_FALSE(driver_versions_equal("570.133.20", "570.133.2"));
  EXPECT_FALSE(driver_versions_equal("", ""));
  EXPECT_EQ(gpu_allocation_path(true, std::nullopt), "dra");
  EXPECT_EQ(gpu_allocation_path(false, 8), "device_plugin");
  EXPECT_EQ(gpu_allocation_path(true, 8), "both");
  EXPECT_EQ(gpu_allocation_path(false, 0), "none");
}

TEST(DraRules, AMalformedSliceNamesTheFileAndPlace) {
  nlohmann::json j = slices_json();
  j["items"][0]["spec"].erase("driver");
  try {
    parse_dra_objects(j, "slices.json");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), "slices.json");
    EXPECT_NE(e.where().find("$.items[0].spec"), std::string::npos) << e.where();
  }
}

CheckResult run_check(nlohmann::json params) {
  const CheckInfo* info = CheckRegistry::instance().find("dra");
  EXPECT_NE(info, nullptr);
  CheckContext ctx;
  ctx.node.k8s_node_name = "node-a";
  ctx.node.driver_version = "570.133.20";
  ctx.node_gpus = node_a_gpus();
  ctx.params = std::move(params);
  return info->make()->run(ctx);
}

TEST(DraCheck, PassesOnTheExampleNodeAndSaysItsPath) {
  const CheckResult r = run_check({{"objects_file", kSlices}});
  EXPECT_EQ(r.status, Status::pass) << r.reason;
  EXPECT_EQ(r.attributes.at("gpu_path"), "dra");
  EXPECT_EQ(r.attributes.at("devices"), "3");
}

TEST(DraCheck, NoResourceApiIsNotApplicableAndAccepted) {
  const CheckResult r = run_check({{"api_groups_file", kNoDraGroups}});
  EXPECT_EQ(r.status, Status::skip);
  EXPECT_EQ(r.reason_code, "no_dra");
  EXPECT_EQ(r.attributes.at("resource_api"), "absent");
  RunRecord rec;
  EXPECT_FALSE(not_applicable_refusal(rec, r, "no_dra", std::nullopt))
      << *not_applicable_refusal(rec, r, "no_dra", std::nullopt);
  CheckResult lying = r;
  lying.attributes["gpu_path"] = "dra";
  EXPECT_TRUE(not_applicable_refusal(rec, lying, "no_dra", std::nullopt));
  lying.attributes.erase("resource_api");
  EXPECT_TRUE(not_applicable_refusal(rec, lying, "no_dra", std::nullopt));
}

TEST(DraCheck, NoDriverIsNotApplicableNothingReadIsInconclusiveBadFileIsAnError) {
  const auto tmp = std::filesystem::temp_directory_path() / "gpuqual-dra-test.json";
  std::ofstream(tmp) << R"({"apiVersion":"v1","kind":"List","items":[]})";
  CheckResult r = run_check({{"objects_file", tmp.string()}});
  EXPECT_EQ(r.reason_code, "no_dra");
  EXPECT_EQ(r.attributes.at("resource_api"), "present");
  r = run_check(nlohmann::json::object());
  EXPECT_EQ(r.status, Status::skip);
  EXPECT_EQ(r.reason_code, "");
  std::ofstream(tmp) << "{not json";
  r = run_check({{"objects_file", tmp.string()}});
  EXPECT_EQ(r.status, Status::error);
  EXPECT_NE(r.reason.find(tmp.string()), std::string::npos) << r.reason;
  std::filesystem::remove(tmp);
}

// Before/after an upgrade, `gpuqual diff` judges the dra check's findings as it judges any
// (core/judge/diff.cpp): a slice that is gone, or re-published empty, after fails the node.
TEST(DraDiff, ASliceLostInTheUpgradeFailsTheDiff) {
  const DraObjects o = parse_dra_objects(slices_json(), kSlices);
  DraObjects empty = o;
  empty.slices[0].devices.clear();
  for (const auto& [after_objects, code] :
       {std::pair{DraObjects{{}, o.device_classes, {}}, "dra.slice_missing"},
        std::pair{empty, "dra.slice_empty"}}) {
    testing::Jitter jitter{std::mt19937_64(1)};
    RunRecord before = testing::node_record(jitter, 2);
    RunRecord after = testing::node_record(jitter, 2);
    CheckResult dra;
    dra.name = "dra";
    dra.status = Status::pass;
    before.checks.push_back(dra);
    dra.findings = judge_dra(after_objects, "node-a", node_a_gpus(), "570.133.20");
    dra.status = Status::fail;
    dra.reason = dra.findings.at(0).detail;
    after.checks.push_back(dra);
    const Verdict v = diff_records(before, after, DiffOptions{});
    EXPECT_EQ(v.outcome, Outcome::fail) << v.summary;
    const auto row =
        std::find_if(v.findings.begin(), v.findings.end(),
                     [want = std::string(code)](const FindingRow& r) { return r.finding.code == want; });
    ASSERT_NE(row, v.findings.end()) << code;
    EXPECT_EQ(row->status, Status::fail);
    EXPECT_NE(row->reason.find("new since the before-run"), std::string::npos) << row->reason;
  }
}

}  // namespace
}  // namespace gpuqual
