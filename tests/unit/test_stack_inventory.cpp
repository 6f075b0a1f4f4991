// node.stack in the run record: written, read back by both readers to the same StackInventory,
// null facts carry their reason, and both readers reject the same bad stacks the same way.
#include <gtest/gtest.h>

#include <functional>
#include <nlohmann/json.hpp>

#include "core/base/input_error.hpp"
#include "core/base/json_input.hpp"
#include "core/record/record_io.hpp"
#include "core/record/record_json.hpp"
#include "core/record/record_reader.hpp"
#include "record_builders.hpp"

using namespace gpuqual;
using namespace gpuqual::testing;
using nlohmann::json;

namespace {

RunRecord record_with_stack() {
  RunRecord r = make_record(2);
  r.node.stack = make_stack(2);
  return r;
}

std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "(accepted)";
}

std::string strict_verdict(const std::string& text) {
  return message_of([&] { record_from_json(parse_json_text(text, "r.json"), "r.json"); });
}

std::string streaming_verdict(const std::string& text) {
  return message_of([&] { StreamingRecordReader().parse(text, "r.json"); });
}

}  // namespace

TEST(StackInventoryJson, NullFactsAreWrittenWithTheirReason) {
  const json j = to_json(record_with_stack());
  const json& s = j["node"]["stack"];
  EXPECT_EQ(s["bios_version"], "2.19.1");
  EXPECT_TRUE(s["board_name"].is_null());
  EXPECT_EQ(s["unread"]["board_name"], "/sys/class/dmi/id/board_name: Permission denied");
  EXPECT_FALSE(s["unread"].contains("bios_version"));
  EXPECT_TRUE(s["nics"][1]["firmware"].is_null());
  EXPECT_EQ(s["nics"][1]["unread"]["firmware"], "sysfs has no firmware version for eno1");
  EXPECT_TRUE(s["gpu_firmware"][0]["inforom_power"].is_null());
  EXPECT_EQ(s["platform"]["gpu-operator"], "v25.10.0");
}

TEST(StackInventoryJson, BothReadersReadBackTheSameStack) {
  RunRecord r = record_with_stack();
  const std::string text = record_to_text(r);
  const RunRecord strict = record_from_json(parse_json_text(text, "r.json"), "r.json");
  const RunRecord fast = StreamingRecordReader().parse(text, "r.json");
  ASSERT_TRUE(strict.node.stack && fast.node.stack);
  EXPECT_EQ(*strict.node.stack, *r.node.stack);
  EXPECT_EQ(*fast.node.stack, *r.node.stack);

  // A sysfs that could not be listed: nics null with its reason, read back the same.
  r.node.stack->nics.reset();
  r.node.stack->nics_reason = "/sys/class/net: Permission denied";
  const std::string text2 = record_to_text(r);
  EXPECT_EQ(*record_from_json(parse_json_text(text2, "r.json"), "r.json").node.stack, *r.node.stack);
  EXPECT_EQ(*StreamingRecordReader().parse(text2, "r.json").node.stack, *r.node.stack);
}

TEST(StackInventoryJson, ARecordWithoutAStackStaysWithoutOne) {
  const RunRecord r = make_record(1);
  const std::string text = record_to_text(r);
  EXPECT_FALSE(to_json(r)["node"].contains("stack"));
  EXPECT_FALSE(record_from_json(parse_json_text(text, "r.json"), "r.json").node.stack);
  EXPECT_FALSE(StreamingRecordReader().parse(text, "r.json").node.stack);
}

TEST(StackInventoryJson, BothReadersRejectTheSameBadStacksWithTheSameMessage) {
  const json good = to_json(record_with_stack());
  const std::vector<std::tuple<std::string, std::function<void(json&)>, std::string>> mutations = {
      {"null without reason", [](json& j) { j["node"]["stack"]["unread"].erase("board_name"); },
       "$.node.stack.board_name: null without a reason in unread"},
      {"absent without reason", [](json& j) { j["node"]["stack"].erase("bios_vendor"); },
       "$.node.stack.bios_vendor: null without a reason in unread"},
      {"empty reason", [](json& j) { j["node"]["stack"]["unread"]["board_name"] = ""; },
       "$.node.stack.board_name: null without a reason in unread"},
      {"reason for a read fact", [](json& j) { j["node"]["stack"]["unread"]["bios_date"] = "x"; },
       "$.node.stack.unread.bios_date: a reason is given for a fact that was read"},
      {"reason naming no fact", [](json& j) { j["node"]["stack"]["unread"]["bios_color"] = "x"; },
       "$.node.stack.unread.bios_color: names no fact of this object"},
      {"reason not a string", [](json& j) { j["node"]["stack"]["unread"]["board_name"] = 3; },
       "$.node.stack.unread.board_name: expected a string"},
      {"fact not a string", [](json& j) { j["node"]["stack"]["bios_version"] = 2; },
       "$.node.stack.bios_version: expected a string, found number"},
      {"nics null without reason", [](json& j) { j["node"]["stack"]["nics"] = nullptr; },
       "$.node.stack.nics: null without a reason in unread"},
      {"nic class", [](json& j) { j["node"]["stack"]["nics"][0]["class"] = "ethernet"; },
       "$.node.stack.nics[0].class: must be infiniband or net"},
      {"nic firmware without reason",
       [](json& j) { j["node"]["stack"]["nics"][1]["unread"] = json::object(); },
       "$.node.stack.nics[1].firmware: null without a reason in unread"},
      {"nic unknown field", [](json& j) { j["node"]["stack"]["nics"][0]["speed"] = "100G"; },
       "$.node.stack.nics[0].speed: unknown field (typo, or a newer schema?)"},
      {"gpu firmware index", [](json& j) { j["node"]["stack"]["gpu_firmware"][1]["gpu"] = -1; },
       "$.node.stack.gpu_firmware[1].gpu: -1 is out of range [0, 1023]"},
      {"gpu firmware missing", [](json& j) { j["node"]["stack"].erase("gpu_firmware"); },
       "$.node.stack.gpu_firmware: required field is missing"},
      {"platform value", [](json& j) { j["node"]["stack"]["platform"]["gpu-operator"] = 25; },
       "$.node.stack.platform.gpu-operator: expected a string"},
      {"platform without name", [](json& j) { j["node"]["stack"]["platform"][""] = "v1"; },
       "$.node.stack.platform: a platform component needs a name"},
      {"stack unknown field", [](json& j) { j["node"]["stack"]["zzz"] = "1"; },
       "$.node.stack.zzz: unknown field (typo, or a newer schema?)"},
      {"stack not an object", [](json& j) { j["node"]["stack"] = "none"; },
       "$.node.stack: expected an object, found string"},
  };
  for (const auto& [what, mutate, expected] : mutations) {
    json j = good;
    mutate(j);
    const std::string text = j.dump(2);
    const std::string strict = strict_verdict(text);
    EXPECT_EQ(strict, "r.json: " + expected) << what;
    EXPECT_EQ(streaming_verdict(text), strict) << what;
  }
}
