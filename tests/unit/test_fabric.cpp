// The fabric check over recorded sysfs trees (tests/data/fabric/, README there): the attribute
// parsers, the reader, the PCI relation, the rules, and the whole check through the registry.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "core/base/atomic_file.hpp"
#include "core/base/input_error.hpp"
#include "core/record/skip_reason.hpp"
#include "core/rules/fabric_rules.hpp"
#include "core/rules/pci_relation.hpp"
#include "device/host/fabric_sysfs.hpp"
#include "process_helpers.hpp"
#include "suites/check.hpp"
#include "suites/check_catalog.hpp"
#include "suites/check_context.hpp"

using namespace gpuqual;
using gpuqual::testing::temp_dir;
namespace fs = std::filesystem;

namespace {

std::string tree(const std::string& name) { return std::string(GPUQUAL_TEST_DATA) + "/fabric/" + name; }

std::vector<std::string> all_counters() {
  std::vector<std::string> out;
  for (const auto& c : fabric_error_counters()) out.emplace_back(c.name);
  return out;
}

FabricSnapshot read_tree(const std::string& root) {
  auto s = read_fabric_snapshot(root, all_counters());
  if (!s) throw std::runtime_error("cannot read " + root);
  return *s;
}

CheckResult run_fabric(nlohmann::json params, const std::string& side_dir = "") {
  CheckContext ctx;
  if (!params.contains("window_s")) params["window_s"] = 0;
  ctx.params = params;
  ctx.side_dir = side_dir;
  return CheckRegistry::instance().find("fabric")->make()->run(ctx);
}

std::vector<const Finding*> with_code(const CheckResult& r, const std::string& code) {
  std::vector<const Finding*> out;
  for (const auto& f : r.findings)
    if (f.code == code) out.push_back(&f);
  return out;
}

// A writable copy of a recorded tree (symlinks kept as symlinks), removed at the end.
struct TreeCopy {
  std::string dir = temp_dir("fabric");
  std::string root = dir + "/root";
  explicit TreeCopy(const std::string& name) {
    fs::copy(tree(name), root, fs::copy_options::recursive | fs::copy_options::copy_symlinks);
  }
  ~TreeCopy() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
  void set_counter(const std::string& hca, int port, const std::string& counter, std::uint64_t value) const {
    const fs::path p =
        fs::path(root) / "sys/class/infiniband" / hca / "ports" / std::to_string(port) / "counters" / counter;
    std::ofstream(p) << value << "\n";
  }
};

}  // namespace

TEST(FabricSysfs, ParsesTheKernelsAttributeFormats) {
  EXPECT_EQ(parse_ib_state("4: ACTIVE"), "ACTIVE");
  EXPECT_EQ(parse_ib_state("5: LinkUp\n"), "LinkUp");
  EXPECT_EQ(parse_ib_state("2: Polling"), "Polling");
  const auto ndr = parse_ib_rate("400 Gb/sec (4X NDR)");
  ASSERT_TRUE(ndr);
  EXPECT_DOUBLE_EQ(ndr->gbps, 400);
  EXPECT_EQ(ndr->width, "4X");
  EXPECT_EQ(ndr->speed, "NDR");
  const auto sdr = parse_ib_rate("2.5 Gb/sec (1X SDR)");
  ASSERT_TRUE(sdr);
  EXPECT_DOUBLE_EQ(sdr->gbps, 2.5);
  const auto old = parse_ib_rate("40 Gb/sec (4X)");  // a driver that printed no speed name
  ASSERT_TRUE(old);
  EXPECT_EQ(old->width, "4X");
  EXPECT_EQ(old->speed, "");
  EXPECT_FALSE(parse_ib_rate(""));
  EXPECT_FALSE(parse_ib_rate("400 Gb/sec"));
  EXPECT_FALSE(parse_ib_rate("fast (4X NDR)"));
  EXPECT_EQ(sysfs_bus_id("00000000:19:00.0"), "0000:19:00.0");
  EXPECT_EQ(sysfs_bus_id("0000:BB:00.0"), "0000:bb:00.0");
}

TEST(FabricSysfs, ReadsTheRecordedNdrNode) {
  const FabricSnapshot s = read_tree(tree("h100-ndr"));
  ASSERT_EQ(s.hcas.size(), 3u);
  const FabricHca& h = s.hcas[0];
  EXPECT_EQ(h.name, "mlx5_0");
  EXPECT_EQ(h.fw_ver, "28.39.1002");
  EXPECT_EQ(h.hca_type, "MT4129");
  EXPECT_EQ(h.pci_address, "0000:1a:00.0");
  EXPECT_EQ(h.pci_path, (std::vector<std::string>{"pci0000:16", "0000:16:02.0", "0000:17:00.0",
                                                  "0000:18:01.0", "0000:1a:00.0"}));
  EXPECT_EQ(h.numa_node, 0);
  ASSERT_EQ(h.ports.size(), 1u);
  const FabricPort& p = h.ports[0];
  EXPECT_EQ(p.number, 1);
  EXPECT_EQ(p.state, "ACTIVE");
  EXPECT_EQ(p.phys_state, "LinkUp");
  EXPECT_EQ(p.rate_gbps, 400);
  EXPECT_EQ(p.width, "4X");
  EXPECT_EQ(p.link_layer, "InfiniBand");
  EXPECT_EQ(p.counters.at("symbol_error"), 3u);
  EXPECT_EQ(p.counters.at("link_downed"), 0u);
  EXPECT_EQ(s.hcas[2].ports[0].link_layer, "Ethernet");
  EXPECT_EQ(s.hcas[1].numa_node, 1);
}

TEST(FabricSysfs, NoInfinibandClassIsNoHcaButNoSysfsIsNotRead) {
  const auto none = read_fabric_snapshot(tree("no-hca"), all_counters());
  ASSERT_TRUE(none);
  EXPECT_TRUE(none->hcas.empty());
  EXPECT_FALSE(read_fabric_snapshot(tree("no-such-node"), all_counters()));
}

TEST(FabricSysfs, GpuDirectFactsAndPaths) {
  const GpuDirectFacts good = read_gpudirect_facts(tree("h100-ndr"));
  EXPECT_TRUE(good.peermem_loaded);
  EXPECT_TRUE(good.open_kernel_module);
  EXPECT_EQ(good.kernel_release, "6.8.0-45-generic");
  EXPECT_EQ(gpudirect_path(good, nullptr), "nvidia_peermem");

  const GpuDirectFacts bad = read_gpudirect_facts(tree("a100-hdr-degraded"));
  EXPECT_FALSE(bad.peermem_loaded);
  EXPECT_TRUE(bad.nvidia_module_read);
  EXPECT_FALSE(bad.open_kernel_module);
  std::string why;
  EXPECT_EQ(gpudirect_path(bad, &why), "");
  EXPECT_NE(why.find("proprietary"), std::string::npos) << why;

  // The dma-buf path: the open module on Linux 5.12 or newer, without nvidia_peermem.
  GpuDirectFacts f;
  f.nvidia_module_read = f.open_kernel_module = true;
  f.kernel_release = "5.12.0";
  EXPECT_EQ(gpudirect_path(f, nullptr), "dma-buf");
  f.kernel_release = "5.11.22-100.fc32.x86_64";
  EXPECT_EQ(gpudirect_path(f, &why), "");
  EXPECT_NE(why.find("5.12"), std::string::npos) << why;
  f.kernel_release = "6.1.0-26-amd64";
  EXPECT_EQ(gpudirect_path(f, nullptr), "dma-buf");
}

TEST(FabricTopology, RelatesHcasToGpusBySysfsPath) {
  const std::string ndr = tree("h100-ndr");
  const FabricSnapshot s = read_tree(ndr);
  const auto gpu0 = read_pci_location(ndr, "00000000:19:00.0");  // NVML's spelling
  const auto gpu1 = read_pci_location(ndr, "0000:bb:00.0");
  ASSERT_TRUE(gpu0 && gpu1);
  EXPECT_EQ(gpu1->numa_node, 1);
  EXPECT_EQ(pci_relation(s.hcas[0].pci_path, s.hcas[0].numa_node, gpu0->path, gpu0->numa_node),
            "pcie_switch");
  EXPECT_EQ(pci_relation(s.hcas[0].pci_path, s.hcas[0].numa_node, gpu1->path, gpu1->numa_node), "cross_numa");
  EXPECT_EQ(pci_relation(s.hcas[2].pci_path, s.hcas[2].numa_node, gpu0->path, gpu0->numa_node), "numa_node");
  EXPECT_EQ(pci_relation(s.hcas[1].pci_path, s.hcas[1].numa_node, gpu1->path, gpu1->numa_node),
            "pcie_switch");

  const std::string a100 = tree("a100-hdr-degraded");
  const FabricSnapshot d = read_tree(a100);
  const auto a0 = read_pci_location(a100, "0000:07:00.0");
  ASSERT_TRUE(a0);
  EXPECT_EQ(pci_relation(d.hcas[0].pci_path, d.hcas[0].numa_node, a0->path, a0->numa_node), "host_bridge");
  EXPECT_EQ(pci_relation({}, 0, a0->path, 0), "unknown");
  EXPECT_EQ(pci_relation({"pci0000:00", "0000:00:01.0"}, std::nullopt, {"pci0000:40", "0000:40:01.0"}, 0),
            "unknown");
  EXPECT_FALSE(read_pci_location(a100, "0000:ff:00.0"));
}

TEST(FabricRules, ParamsAreChecked) {
  EXPECT_NO_THROW(parse_fabric_params(nlohmann::json::object(), "s.yaml"));
  for (const char* bad : {R"({"expect_width": "4"})", R"({"expect_width": "X"})", R"({"gpudirect": "maybe"})",
                          R"({"counters": ["symbol_errors"]})", R"({"expect_link_layer": "ib"})",
                          R"({"window_s": -1})", R"({"expect_rate": 400})", R"({"root": ""})"}) {
    EXPECT_THROW(parse_fabric_params(nlohmann::json::parse(bad), "s.yaml"), InputError) << bad;
  }
  try {
    parse_fabric_params(nlohmann::json::parse(R"({"gpudirect": "maybe"})"), "suites/standard.yaml");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("suites/standard.yaml"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("gpudirect"), std::string::npos);
  }
}

TEST(FabricRules, CounterGrowthIsAFindingWithTheCountersSeverity) {
  TreeCopy t("h100-ndr");
  const FabricSnapshot before = read_tree(t.root);
  t.set_counter("mlx5_0", 1, "link_downed", 1);
  t.set_counter("mlx5_0", 1, "symbol_error", 10);           // 3 → 10
  t.set_counter("mlx5_1", 1, "port_xmit_data", 999999999);  // traffic, not an error counter
  const FabricSnapshot after = read_tree(t.root);
  FabricExpectations e = parse_fabric_params(nlohmann::json::object(), "t");
  const FabricJudgement j = judge_fabric(after, &before, read_gpudirect_facts(t.root), e);
  EXPECT_EQ(j.status, Status::fail);
  ASSERT_EQ(j.findings.size(), 2u);
  EXPECT_EQ(j.findings[0].code, "fabric.counter_grew");
  EXPECT_EQ(j.findings[0].severity, Severity::fail);
  EXPECT_NE(j.findings[0].detail.find("mlx5_0/1 link_downed grew by 1"), std::string::npos)
      << j.findings[0].detail;
  EXPECT_EQ(j.findings[1].severity, Severity::warn);
  EXPECT_EQ(j.findings[1].value, 7);

  // A counter that went down was reset: no growth. Unread counters are not judged.
  t.set_counter("mlx5_0", 1, "link_downed", 0);
  t.set_counter("mlx5_0", 1, "symbol_error", 0);
  const FabricJudgement reset = judge_fabric(read_tree(t.root), &before, read_gpudirect_facts(t.root), e);
  EXPECT_EQ(reset.status, Status::pass) << reset.reason;
  // Only the counters asked for.
  e.counters = {"link_downed"};
  t.set_counter("mlx5_0", 1, "symbol_error", 100);
  EXPECT_EQ(judge_fabric(read_tree(t.root), &before, read_gpudirect_facts(t.root), e).status, Status::pass);
}

TEST(FabricRules, SnapshotJsonRoundTrips) {
  const FabricSnapshot s = read_tree(tree("h100-ndr"));
  const FabricSnapshot back = fabric_snapshot_from_json(to_json(s), "fabric-before.json");
  EXPECT_EQ(to_json(back), to_json(s));
  EXPECT_EQ(back.hcas[0].ports[0].counters.at("symbol_error"), 3u);
  nlohmann::json bad = to_json(s);
  bad["hcas"][0]["ports"][0]["counters"]["link_downed"] = -1;
  EXPECT_THROW(fabric_snapshot_from_json(bad, "x.json"), InputError);
  bad = to_json(s);
  bad["hcas"][0]["speed"] = "fast";
  EXPECT_THROW(fabric_snapshot_from_json(bad, "x.json"), InputError);
}

TEST(FabricCheck, HealthyNdrNodePassesAndRecordsRatesFirmwareAndTopology) {
  const CheckResult r = run_fabric({{"root", tree("h100-ndr")}, {"gpudirect", "required"}});
  EXPECT_EQ(r.status, Status::pass) << r.reason;
  EXPECT_TRUE(r.findings.empty());
  ASSERT_EQ(r.metrics.size(), 3u);
  EXPECT_EQ(r.metrics[0].name, "fabric.mlx5_0.p1.rate_gbps");
  EXPECT_EQ(r.metrics[0].unit, "Gb/s");
  EXPECT_DOUBLE_EQ(r.metrics[0].median, 400);
  EXPECT_DOUBLE_EQ(r.metrics[2].median, 200);  // the Ethernet port is compared with Ethernet ports only
  EXPECT_EQ(r.attributes.at("gpudirect"), "nvidia_peermem");
  EXPECT_EQ(r.attributes.at("mlx5_0.fw_ver"), "28.39.1002");
  EXPECT_EQ(r.attributes.at("mlx5_0/1"), "ACTIVE LinkUp InfiniBand 400 Gb/s (4X NDR)");
  EXPECT_EQ(r.attributes.at("mlx5_0.gpus"), "0000:19:00.0=pcie_switch, 0000:bb:00.0=cross_numa");
  EXPECT_EQ(r.attributes.at("0000:bb:00.0.nearest_hca"), "mlx5_1 (pcie_switch)");
  EXPECT_EQ(r.attributes.at("ports_judged"), "3");
  EXPECT_NE(r.attributes.at("counters_since").find("start of the fabric check"), std::string::npos);
}

TEST(FabricCheck, DegradedNodeFailsOnEveryProblemItHas) {
  const CheckResult r = run_fabric({{"root", tree("a100-hdr-degraded")}});
  EXPECT_EQ(r.status, Status::fail);
  const auto mismatch = with_code(r, "fabric.rate_mismatch");
  ASSERT_EQ(mismatch.size(), 1u);
  EXPECT_NE(mismatch[0]->detail.find("mlx5_1/1 runs at 100 Gb/s (2X HDR)"), std::string::npos)
      << mismatch[0]->detail;
  const auto down = with_code(r, "fabric.port_down");
  ASSERT_EQ(down.size(), 1u);
  EXPECT_NE(down[0]->detail.find("mlx5_2/1 is DOWN (physical state Polling)"), std::string::npos)
      << down[0]->detail;
  const auto fw = with_code(r, "fabric.firmware_mismatch");
  ASSERT_EQ(fw.size(), 1u);
  EXPECT_EQ(fw[0]->severity, Severity::warn);
  EXPECT_NE(fw[0]->detail.find("20.35.1012, 20.39.1002"), std::string::npos) << fw[0]->detail;
  const auto gd = with_code(r, "fabric.gpudirect");
  ASSERT_EQ(gd.size(), 1u);
  EXPECT_EQ(gd[0]->severity, Severity::info);                // not required by default: recorded
  EXPECT_TRUE(with_code(r, "fabric.counter_grew").empty());  // link_downed is 2, but it did not grow
  EXPECT_EQ(r.attributes.at("mlx5_0.gpus"), "0000:07:00.0=host_bridge, 0000:87:00.0=cross_numa");
}

TEST(FabricCheck, ExpectationsFromTheSuite) {
  const std::string a100 = tree("a100-hdr-degraded");
  // Against an explicit rate: every HDR port is below NDR.
  CheckResult r = run_fabric({{"root", a100}, {"ignore", {"mlx5_2"}}, {"expect_rate_gbps", 400}});
  EXPECT_EQ(with_code(r, "fabric.rate_degraded").size(), 2u);
  EXPECT_TRUE(with_code(r, "fabric.rate_mismatch").empty());  // an explicit rate replaces "all equal"
  // Width only.
  r = run_fabric({{"root", a100}, {"ignore", {"mlx5_2"}}, {"expect_width", "4X"}});
  ASSERT_EQ(with_code(r, "fabric.rate_degraded").size(), 1u);
  // Firmware, link layer, HCA count, named HCAs.
  r = run_fabric({{"root", a100},
                  {"hcas", {"mlx5_0", "mlx5_9"}},
                  {"expect_fw", "20.39.1002"},
                  {"expect_link_layer", "Ethernet"}});
  EXPECT_EQ(with_code(r, "fabric.hca_missing").size(), 1u);
  EXPECT_TRUE(with_code(r, "fabric.firmware").empty());  // mlx5_0 is on it; mlx5_1 is out of scope
  EXPECT_EQ(with_code(r, "fabric.link_layer").size(), 1u);
  r = run_fabric({{"root", a100}, {"expect_fw", "20.39.1002"}, {"expect_hcas", 4}});
  EXPECT_EQ(with_code(r, "fabric.firmware").size(), 1u);
  EXPECT_EQ(with_code(r, "fabric.hca_missing").size(), 1u);
  // GPUDirect required where it is not available.
  r = run_fabric({{"root", a100}, {"ignore", {"mlx5_1", "mlx5_2"}}, {"gpudirect", "required"}});
  EXPECT_EQ(r.status, Status::fail);
  ASSERT_EQ(with_code(r, "fabric.gpudirect").size(), 1u);
  EXPECT_EQ(with_code(r, "fabric.gpudirect")[0]->severity, Severity::fail);
  // Ignoring the bad HCAs (or one port) leaves a passing node.
  r = run_fabric({{"root", a100}, {"ignore", {"mlx5_1", "mlx5_2/1"}}});
  EXPECT_EQ(r.status, Status::pass) << r.reason;
  // Everything ignored: nothing judged is not a pass.
  r = run_fabric({{"root", a100}, {"ignore", {"mlx5_0", "mlx5_1", "mlx5_2"}}});
  EXPECT_EQ(r.status, Status::skip);
  EXPECT_EQ(r.reason_code, "");
}

TEST(FabricCheck, NoHcaIsNotApplicableUnlessOneIsExpected) {
  CheckResult r = run_fabric({{"root", tree("no-hca")}});
  EXPECT_EQ(r.status, Status::skip);
  EXPECT_EQ(r.reason_code, "no_hca");
  EXPECT_TRUE(is_not_applicable_code(r.reason_code));
  r = run_fabric({{"root", tree("no-hca")}, {"expect_hcas", 1}});
  EXPECT_EQ(r.status, Status::fail);
  EXPECT_EQ(with_code(r, "fabric.hca_missing").size(), 1u);
  // No sysfs at all: could not measure.
  r = run_fabric({{"root", tree("no-such-node")}});
  EXPECT_EQ(r.status, Status::error);
  EXPECT_NE(r.reason.find("sysfs"), std::string::npos);
}

TEST(FabricCheck, CountersSinceTheRunStartWhenTheRunnerLeftASnapshot) {
  TreeCopy t("h100-ndr");
  const std::string side = t.dir + "/side";
  fs::create_directories(side);
  write_file_atomic(side + "/" + kFabricBeforeFile, to_json(read_tree(t.root)).dump());
  t.set_counter("mlx5_1", 1, "port_rcv_errors", 5);
  const CheckResult r = run_fabric({{"root", t.root}}, side);
  EXPECT_EQ(r.status, Status::fail);
  ASSERT_EQ(with_code(r, "fabric.counter_grew").size(), 1u);
  EXPECT_EQ(with_code(r, "fabric.counter_grew")[0]->value, 5);
  EXPECT_NE(r.attributes.at("counters_since").find("start of the run"), std::string::npos);
  // A snapshot of another tree (the node's own /sys) does not apply to this root.
  FabricSnapshot of_node = read_tree(tree("h100-ndr"));
  of_node.root = "/";
  write_file_atomic(side + "/" + kFabricBeforeFile, to_json(of_node).dump());
  EXPECT_EQ(run_fabric({{"root", t.root}}, side).status, Status::pass);
}

TEST(FabricCheck, WaitsItsWindowAndSeesGrowthDuringIt) {
  TreeCopy t("h100-ndr");
  std::thread bump([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    t.set_counter("mlx5_0", 1, "link_downed", 1);
  });
  const CheckResult r = run_fabric({{"root", t.root}, {"window_s", 1.5}});
  bump.join();
  EXPECT_GE(r.duration_s, 1.5);
  EXPECT_EQ(r.status, Status::fail);
  EXPECT_EQ(with_code(r, "fabric.counter_grew").size(), 1u);
  EXPECT_EQ(r.attributes.at("counters_since"), "start of the fabric check (1.5 s window)");
}

TEST(FabricCheck, IsRegisteredAndInTheCatalog) {
  ASSERT_NE(CheckRegistry::instance().find("fabric"), nullptr);
  EXPECT_TRUE(in_check_catalog("fabric"));
}
