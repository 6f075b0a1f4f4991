// stack_components (the one list diff, Prometheus and matrix use) and the stack lines of diff.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include <algorithm>

#include "core/judge/diff_stack.hpp"
#include "core/record/stack_inventory.hpp"
#include "record_builders.hpp"

using namespace gpuqual;
using namespace gpuqual::testing;

namespace {

const StackComponent* find(const std::vector<StackComponent>& list, const std::string& name) {
  auto it = std::find_if(list.begin(), list.end(), [&](const StackComponent& c) { return c.name == name; });
  return it == list.end() ? nullptr : &*it;
}

RunRecord with_stack(int gpus = 2) {
  RunRecord r = make_record(gpus);
  r.node.stack = make_stack(gpus);
  return r;
}

std::vector<std::string> changes(const RunRecord& a, const RunRecord& b) {
  return stack_changes(a, b, match_gpus(a.gpus, b.gpus));
}

bool has_line(const std::vector<std::string>& lines, const std::string& line) {
  return std::find(lines.begin(), lines.end(), line) != lines.end();
}

}  // namespace

TEST(StackComponents, ListsEveryComponentOfTheRecordWithItsFact) {
  RunRecord r = with_stack();
  r.node.container_runtimes = {"docker 28.2.2"};
  CheckResult probe;
  probe.name = "container_probe";
  probe.attributes = {{"cuda-base.image", "nvcr.io/nvidia/cuda:13.0.0-base"},
                      {"cuda-base.image_digest", "nvcr.io/nvidia/cuda@sha256:0123"},
                      {"cuda-base.image_id", "sha256:abcd"},
                      {"local.image", "gpuqual-probe:dev"},
                      {"local.image_id", "sha256:beef"},
                      {"missing.image", "nvcr.io/nvidia/cuda:99.0-base"}};
  r.checks.push_back(probe);
  const auto list = stack_components(r);
  std::vector<std::string> names;
  for (const auto& c : list) names.push_back(c.name);
  // Names are unique: they key matrix rows and Prometheus series.
  auto sorted = names;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(std::adjacent_find(sorted.begin(), sorted.end()), sorted.end());

  EXPECT_EQ(names.front(), "driver");
  ASSERT_TRUE(find(list, "bios.version"));
  EXPECT_EQ(find(list, "bios.version")->fact.value, "2.19.1");
  ASSERT_TRUE(find(list, "board.name"));
  EXPECT_FALSE(find(list, "board.name")->fact.known());
  EXPECT_EQ(find(list, "board.name")->fact.reason, "/sys/class/dmi/id/board_name: Permission denied");
  EXPECT_EQ(find(list, "nic.mlx5_0.firmware")->fact.value, "28.39.1002");
  EXPECT_EQ(find(list, "nic.eno1.driver")->fact.value, "tg3");
  EXPECT_EQ(find(list, "gpu.1.vbios")->fact.value, "96.00.99.00.01");
  EXPECT_EQ(find(list, "gpu.1.inforom_image")->fact.value, "G520.0200.00.05");
  EXPECT_EQ(find(list, "gpu.0.gsp_firmware")->fact.value, "570.133.20");
  EXPECT_EQ(find(list, "container_runtime.docker")->fact.value, "28.2.2");
  EXPECT_EQ(find(list, "container_toolkit")->fact.value, "1.17.4");
  EXPECT_EQ(find(list, "k8s.kubelet")->fact.value, "v1.31.4");
  EXPECT_EQ(find(list, "platform.gpu-operator")->fact.value, "v25.10.0");
  // The digest, not the tag: a tag can point at another image tomorrow.
  EXPECT_EQ(find(list, "image.container_probe.cuda-base")->fact.value, "nvcr.io/nvidia/cuda@sha256:0123");
  // A locally built image has no registry digest: its id names it.
  EXPECT_EQ(find(list, "image.container_probe.local")->fact.value, "sha256:beef");
  // An image that was not present: null, with the reference it asked for.
  EXPECT_EQ(find(list, "image.container_probe.missing")->fact.reason,
            "the probe did not reach the image (nvcr.io/nvidia/cuda:99.0-base)");
  // cuBLAS was not set by make_record: null with a reason, not "".
  EXPECT_FALSE(find(list, "cublas")->fact.known());
}

TEST(StackComponents, ARecordWithoutAStackListsOnlyTheFactsItHas) {
  const auto list = stack_components(make_record(1));
  EXPECT_TRUE(find(list, "driver"));
  EXPECT_TRUE(find(list, "gpu.0.vbios"));
  EXPECT_FALSE(find(list, "bios.version"));
  EXPECT_FALSE(find(list, "k8s.kubelet"));
}

TEST(StackComponents, NicsThatCouldNotBeListedAreOneNullComponent) {
  RunRecord r = with_stack();
  r.node.stack->nics.reset();
  r.node.stack->nics_reason = "/sys/class/net: Permission denied";
  const auto list = stack_components(r);
  ASSERT_TRUE(find(list, "nic"));
  EXPECT_EQ(find(list, "nic")->fact.reason, "/sys/class/net: Permission denied");
  EXPECT_FALSE(find(list, "nic.mlx5_0.firmware"));
}

TEST(DiffStack, ReportsChangedFirmwareToolkitAndOperatorVersions) {
  const RunRecord before = with_stack();
  RunRecord after = with_stack();
  after.node.stack->bios_version = StackFact::read("2.20.0");
  after.node.stack->gpu_firmware[1].inforom_image = StackFact::read("G520.0200.00.06");
  after.node.stack->container_toolkit = StackFact::read("1.18.0");
  after.node.stack->platform["gpu-operator"] = "v25.10.1";
  (*after.node.stack->nics)[0].firmware = StackFact::read("28.41.1000");
  const auto lines = changes(before, after);
  EXPECT_TRUE(has_line(lines, "bios.version: 2.19.1 → 2.20.0")) << fmt::format("{}", fmt::join(lines, "\n"));
  EXPECT_TRUE(has_line(
      lines,
      "InfoROM image gpu 1 (GPU-00000000-0000-0000-0000-000000000001): G520.0200.00.05 → G520.0200.00.06"));
  EXPECT_TRUE(has_line(lines, "container_toolkit: 1.17.4 → 1.18.0"));
  EXPECT_TRUE(has_line(lines, "platform.gpu-operator: v25.10.0 → v25.10.1"));
  EXPECT_TRUE(has_line(lines, "nic.mlx5_0.firmware: 28.39.1002 → 28.41.1000"));
  EXPECT_EQ(lines.size(), 5u);
}

TEST(DiffStack, AFactThatBecameUnreadableIsAChangeWithItsReason) {
  const RunRecord before = with_stack();
  RunRecord after = with_stack();
  after.node.stack->bios_version = StackFact::unread("/sys/class/dmi/id/bios_version: Permission denied");
  after.node.stack->board_name = StackFact::unread("another reason");  // null both times: no change
  after.node.stack->platform.erase("dcgm-exporter");
  const auto lines = changes(before, after);
  EXPECT_EQ(lines, (std::vector<std::string>{
                       "bios.version: 2.19.1 → (unread: /sys/class/dmi/id/bios_version: Permission denied)",
                       "platform.dcgm-exporter: 4.2.3-4.1.1 → (none)"}));
}

TEST(DiffStack, AnOlderRecordWithoutAStackIsNotAnUpgradeOfEveryComponent) {
  const RunRecord before = make_record(2);
  const RunRecord after = with_stack();
  EXPECT_TRUE(changes(before, after).empty());
}
