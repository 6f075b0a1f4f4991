// The record reader (core/record/record_reader.hpp) on text and through its entry for a tree
// already parsed (record_json.hpp's record_from_json, once the nlohmann reader): both build the
// same record and refuse with the same message. What the reader accepts is held to the JSON
// Schema by tests/integration/test_record_oracle.py.
#include "core/record/record_reader.hpp"

#include <gtest/gtest.h>

#include <functional>
#include <nlohmann/json.hpp>

#include "core/base/input_error.hpp"
#include "core/base/json_input.hpp"
#include "core/record/record_io.hpp"
#include "core/record/record_json.hpp"
#include "record_builders.hpp"

using namespace gpuqual;
using namespace gpuqual::testing;
using nlohmann::json;

namespace {

// Every field of the record set, optional ones included, so a field the reader forgot shows
// up as a difference (or as "unknown field").
RunRecord full_record() {
  RunRecord r = make_record(2);
  r.node.cpu_model = "AMD EPYC 9654";
  r.node.arch = "x86_64";
  r.node.numa_nodes = 2;
  r.node.cublas_version = "13.0.0";
  r.node.nccl_version = "2.28.3";
  r.node.container_runtimes = {"docker 28.2.2", "podman 4.3.1"};
  r.node.k8s_node_name = "gpu-node-7";
  r.node.k8s_labels = {{"nvidia.com/gpu.product", "NVIDIA-H200"}, {"nvidia.com/gpu.count", "2"}};
  r.node.pci_gpus = std::vector<PciGpu>{{"0000:10:00.0", "0x2335", "0x030200", "nvidia"},
                                        {"0000:11:00.0", "0x2335", "0x030200", ""}};
  r.node.kernel_module_version = "570.133.20";
  r.node.nvml_driver_version = "570.133.20";
  r.node.nvml_cuda_driver_version = "12.8";
  r.node.libcuda_version = "570.133.20";
  r.node.boot_id = "0e5c2d1a-8f6b-4c7e-9a3d-2b1f0c9e8d7a";
  r.node.uptime_s = 86400.5;
  r.node.visible_devices = "NVIDIA_VISIBLE_DEVICES=all";
  r.hardware_class.overridden = true;
  r.gpus[0].virtualization_mode = "none";
  r.gpus[0].mig_enabled = false;
  r.gpus[0].persistence_enabled = true;
  r.gpus[1].nvlink_count = 18;
  CheckResult c;
  c.name = "gemm";
  c.status = Status::warn;
  c.reason = "gpu 1 throttled";
  c.started_at = "2026-11-30T12:00:01Z";
  c.duration_s = 12.5;
  c.per_gpu = {{0, Status::pass, "", ""}, {1, Status::warn, "throttled", ""}};
  c.metrics.push_back(make_metric("gemm.bf16.tflops", "TFLOP/s", {801.5, 799.25, 800.125}, 0));
  Metric m = make_metric("gemm.bf16.tflops", "TFLOP/s", {700.0, 701.0, 650.5, 1e-3}, 1);
  m.throttled_samples = 2;
  c.metrics.push_back(m);
  c.metrics.push_back(make_metric("nccl.allreduce.busbw_gbps", "GB/s", {400.0}, std::nullopt));
  c.findings.push_back(
      Finding{"clocks.throttled", Severity::warn, 1, "SM clock 1290 MHz", "check cooling", 1290.0});
  c.findings.push_back(Finding{"note", Severity::info, std::nullopt, "detail", "", std::nullopt});
  c.attributes = {{"m", "8192"}, {"dtype", "bf16"}};
  r.checks.push_back(c);
  r.checks.push_back(CheckResult{"health", Status::skip, "no NVML", "", 0, {}, {}, {}, {}});
  CheckResult p2p = unmeasurable("p2p", Status::skip, "peer copies need at least 2 GPUs", "single_gpu");
  p2p.optional = true;
  p2p.per_gpu = {{0, Status::skip, "one GPU", "single_gpu"}};
  r.checks.push_back(p2p);
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

}  // namespace

TEST(StreamingRecordReader, BuildsTheSameRecordAsTheStrictReader) {
  const std::string text = record_to_text(full_record());
  const RunRecord slow = record_from_json(parse_json_text(text, "full.json"), "full.json");
  StreamingRecordReader reader;
  const RunRecord fast = reader.parse(text, "full.json");
  EXPECT_EQ(to_json(fast), to_json(slow));
  // The parser is reused: a second record through the same reader is independent of the first.
  RunRecord other = make_record(1);
  EXPECT_EQ(to_json(reader.parse(record_to_text(other), "other.json")), to_json(other));
}

TEST(StreamingRecordReader, RejectsWhatTheStrictReaderRejectsWithTheSameMessage) {
  const json good = to_json(full_record());
  const std::vector<std::pair<std::string, std::function<void(json&)>>> mutations = {
      {"wrong schema", [](json& j) { j["schema"] = "gpuqual.run/v2"; }},
      {"missing field", [](json& j) { j.erase("run_id"); }},
      {"null required field", [](json& j) { j["suite"] = nullptr; }},
      {"unknown field",
       [](json& j) {
         j["zzz"] = 1;
         j["aaa"] = 2;
       }},
      {"wrong type", [](json& j) { j["complete"] = "yes"; }},
      {"empty run id", [](json& j) { j["run_id"] = ""; }},
      {"negative sample", [](json& j) { j["checks"][0]["metrics"][0]["samples"][1] = -1.0; }},
      {"n mismatch", [](json& j) { j["checks"][0]["metrics"][0]["n"] = 7; }},
      {"unknown unit", [](json& j) { j["checks"][0]["metrics"][0]["unit"] = "GBps"; }},
      {"unknown direction", [](json& j) { j["checks"][0]["metrics"][0]["direction"] = "up"; }},
      {"median outside range", [](json& j) { j["checks"][0]["metrics"][0]["median"] = 5000.0; }},
      {"stored median not the samples' median",
       [](json& j) {
         auto& m = j["checks"][0]["metrics"][0];
         m["samples"] = {500.0, 500.0, 500.0};
         m["min"] = 500.0;
         m["max"] = 800.0;
         m["median"] = 771.0;
       }},
      {"stored cv not the samples' cv", [](json& j) { j["checks"][0]["metrics"][0]["cv"] = 0.25; }},
      {"stored max not the samples' max", [](json& j) { j["checks"][0]["metrics"][0]["max"] = 900.0; }},
      {"reason code on a warn", [](json& j) { j["checks"][0]["reason_code"] = "single_gpu"; }},
      {"unknown reason code", [](json& j) { j["checks"][2]["reason_code"] = "no_nvml"; }},
      {"per-GPU reason code on a pass",
       [](json& j) { j["checks"][0]["per_gpu"][0]["reason_code"] = "single_gpu"; }},
      {"optional not a boolean", [](json& j) { j["checks"][2]["optional"] = "yes"; }},
      {"float gpu index", [](json& j) { j["checks"][0]["metrics"][0]["gpu"] = 0.5; }},
      {"gpu not in gpus", [](json& j) { j["checks"][0]["metrics"][0]["gpu"] = 5; }},
      {"gpu out of range", [](json& j) { j["checks"][0]["findings"][0]["gpu"] = 4096; }},
      {"duplicate gpu index", [](json& j) { j["gpus"][1]["index"] = 0; }},
      {"duplicate uuid", [](json& j) { j["gpus"][1]["uuid"] = j["gpus"][0]["uuid"]; }},
      {"empty uuid", [](json& j) { j["gpus"][0]["uuid"] = ""; }},
      {"duplicate pci bus id", [](json& j) { j["gpus"][1]["pci_bus_id"] = "0000:10:00.0"; }},
      {"class not the GPUs'",
       [](json& j) {
         j["hardware_class"]["overridden"] = false;
         j["hardware_class"]["slug"] = "h100-sxm-80gb";
       }},
      {"gpu count not the GPUs'", [](json& j) { j["hardware_class"]["gpu_count"] = 8; }},
      {"fail without reason",
       [](json& j) {
         j["checks"][1]["status"] = "fail";
         j["checks"][1]["reason"] = "";
       }},
      {"unknown status", [](json& j) { j["checks"][0]["per_gpu"][0]["status"] = "ok"; }},
      {"unknown severity", [](json& j) { j["checks"][0]["findings"][0]["severity"] = "fatal"; }},
      {"label not a string",
       [](json& j) {
         j["node"]["k8s_labels"]["b"] = 3;
         j["node"]["k8s_labels"]["a"] = true;
       }},
      {"attribute not a string", [](json& j) { j["checks"][0]["attributes"]["x"] = 1.5; }},
      {"huge integer", [](json& j) { j["gpus"][0]["memory_bytes"] = 18446744073709551615ull; }},
      {"gpus not an array", [](json& j) { j["gpus"] = json::object(); }},
      {"checks element not an object", [](json& j) { j["checks"][0] = 3; }},
      {"argv element not a string", [](json& j) { j["argv"][0] = 1; }},
      {"root not an object", [](json& j) { j = json::array(); }},
      {"pci gpu without bus id", [](json& j) { j["node"]["pci_gpus"][1]["bus_id"] = ""; }},
      {"pci gpu unknown field", [](json& j) { j["node"]["pci_gpus"][0]["vendor"] = "0x10de"; }},
      {"pci gpus not an array", [](json& j) { j["node"]["pci_gpus"] = "none"; }},
      {"negative uptime", [](json& j) { j["node"]["uptime_s"] = -1.0; }},
      {"boot id not a string", [](json& j) { j["node"]["boot_id"] = 7; }},
  };
  for (const auto& [what, mutate] : mutations) {
    json j = good;
    mutate(j);
    const std::string text = j.dump(2);
    const std::string slow =
        message_of([&] { record_from_json(parse_json_text(text, "bad.json"), "bad.json"); });
    const std::string fast = message_of([&] { StreamingRecordReader().parse(text, "bad.json"); });
    EXPECT_NE(slow, "(accepted)") << what;
    EXPECT_EQ(fast, slow) << what;
    EXPECT_EQ(fast.rfind("bad.json: $", 0), 0u) << what << ": " << fast;  // the file, then the JSON path
  }
}

namespace {

// The same JSON with every object's keys in reverse order (nlohmann writes them sorted): the
// reader looks fields up from where the last one was found, and must not depend on the order.
std::string dump_reversed(const json& j) {
  if (j.is_object()) {
    std::vector<std::string> parts;
    for (auto it = j.items().begin(); it != j.items().end(); ++it)
      parts.push_back(json(it.key()).dump() + ":" + dump_reversed(it.value()));
    std::string out = "{";
    for (auto p = parts.rbegin(); p != parts.rend(); ++p) out += (p == parts.rbegin() ? "" : ",") + *p;
    return out + "}";
  }
  if (j.is_array()) {
    std::string out = "[";
    for (std::size_t i = 0; i < j.size(); ++i) out += (i ? "," : "") + dump_reversed(j[i]);
    return out + "]";
  }
  return j.dump();
}

// Puts `field` (a `"key": value` text) first in the root object, ahead of the key it repeats.
std::string with_leading_field(const std::string& text, const std::string& field) {
  return "{" + field + "," + text.substr(text.find('{') + 1);
}

}  // namespace

TEST(StreamingRecordReader, KeyOrderDoesNotMatterAndAnUnknownKeyTwiceIsOneUnknownField) {
  const json good = to_json(full_record());
  const std::string normal = good.dump(2);
  const RunRecord reversed = StreamingRecordReader().parse(dump_reversed(good), "rev.json");
  EXPECT_EQ(to_json(reversed), good);
  // A duplicate whose last copy is null is missing; an unknown key twice is one unknown field.
  const std::string unknown_twice = with_leading_field(normal, R"("zzz": 1, "zzz": 2)");
  EXPECT_EQ(message_of([&] { StreamingRecordReader().parse(unknown_twice, "dup.json"); }),
            "dup.json: $.zzz: unknown field (typo, or a newer schema?)");
}

// A key given twice says two things of one field; which copy a parser keeps is its own choice
// (nlohmann keeps the last). The record reader refuses it, as the baseline reader does (exit 3),
// wherever it is: the root, a nested object, a string map, an array's element.
TEST(StreamingRecordReader, RefusesAKeyGivenTwiceAnywhere) {
  const json good = to_json(full_record());
  const std::string normal = good.dump(2);
  auto refused = [](const std::string& text) {
    return message_of([&] { StreamingRecordReader().parse(text, "dup.json"); });
  };
  EXPECT_EQ(refused(with_leading_field(normal, R"("run_id": "the-first-copy")")),
            "dup.json: $.run_id: duplicate key \"run_id\"");
  EXPECT_EQ(refused(with_leading_field(normal, R"("suite": null)")),
            "dup.json: $.suite: duplicate key \"suite\"");
  EXPECT_EQ(refused(with_leading_field(dump_reversed(good), R"("complete": false)")),
            "dup.json: $.complete: duplicate key \"complete\"");
  // Nested: the node's kernel, a label, the first check's status.
  std::string text = normal;
  text.replace(text.find("\"kernel\":"), 0, "\"kernel\": \"6.8.0-49-generic\", ");
  EXPECT_EQ(refused(text), "dup.json: $.node.kernel: duplicate key \"kernel\"");
  json labelled = good;
  labelled["node"]["k8s_labels"] = {{"nvidia.com/gpu.count", "8"}};
  text = labelled.dump();
  text.replace(text.find("\"nvidia.com/gpu.count\""), 0, "\"nvidia.com/gpu.count\": \"1\", ");
  EXPECT_EQ(refused(text),
            "dup.json: $.node.k8s_labels.nvidia.com/gpu.count: duplicate key \"nvidia.com/gpu.count\"");
  text = normal;
  text.replace(text.find("\"status\":"), 0, "\"status\": \"pass\", ");
  EXPECT_NE(refused(text).find("duplicate key \"status\""), std::string::npos) << refused(text);
}

// Judging uses what the samples say, so the reader names the stored field that disagrees.
TEST(StreamingRecordReader, NamesTheSummaryFieldThatDisagreesWithTheSamples) {
  json j = to_json(full_record());
  auto& m = j["checks"][0]["metrics"][0];
  m["samples"] = {500.0, 500.0, 500.0};
  m["min"] = 500.0;
  m["max"] = 800.0;
  m["median"] = 771.0;
  const std::string text = j.dump(2);
  const std::string message = message_of([&] { StreamingRecordReader().parse(text, "bad.json"); });
  EXPECT_EQ(
      message,
      "bad.json: $.checks[0].metrics[0].median: median 771 disagrees with the samples (recomputed from the 3 "
      "samples: 500)");
}

// A record that says its run completed says when, and not before it started: a complete record
// without readable times cannot be ordered, aged or dropped as stale, so it is refused (exit 3).
TEST(StreamingRecordReader, ACompletedRunSaysWhenItEnded) {
  auto message = [](const std::function<void(json&)>& change) {
    json j = to_json(full_record());
    change(j);
    const std::string text = j.dump(2);
    return message_of([&] { StreamingRecordReader().parse(text, "r.json"); });
  };
  EXPECT_EQ(message([](json& j) { j["ended_at"] = ""; }),
            "r.json: $.ended_at: empty, but the record says its run completed (complete: true)");
  EXPECT_EQ(message([](json& j) { j["ended_at"] = "soon"; }),
            "r.json: $.ended_at: \"soon\" is not an RFC 3339 time, and the record says its run completed "
            "(complete: true)");
  EXPECT_EQ(message([](json& j) { j["started_at"] = "yesterday"; }),
            "r.json: $.started_at: \"yesterday\" is not an RFC 3339 time, and the record says its run "
            "completed (complete: true)");
  EXPECT_EQ(message([](json& j) {
              j["started_at"] = "2026-11-30T12:00:00Z";
              j["ended_at"] = "2026-11-30T11:59:59Z";
            }),
            "r.json: $.ended_at: 2026-11-30T11:59:59Z is before started_at 2026-11-30T12:00:00Z");
  // An open run (interrupted, or still running) has no end yet.
  EXPECT_EQ(message([](json& j) {
              j["complete"] = false;
              j["ended_at"] = "";
            }),
            "(accepted)");
}

TEST(StreamingRecordReader, RejectsMalformedText) {
  StreamingRecordReader reader;
  const std::string good = record_to_text(make_record(1));
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"empty", ""},
      {"blank", "  \n\t "},
      {"truncated", good.substr(0, good.size() / 2)},
      {"trailing garbage", good + "}"},
      {"invalid utf-8", "{\"schema\": \"\xff\xfe\"}"},
      {"NaN", "{\"schema\": NaN}"},
      {"overflowing number", "{\"schema\": 1e999}"},
      {"too deep", std::string(100, '[') + std::string(100, ']')},
  };
  for (const auto& entry : cases) {
    const std::string& what = entry.first;
    const std::string& text = entry.second;  // a name, not a binding: clang 14 cannot capture one (P1091)
    EXPECT_THROW(reader.parse(text, "bad.json"), InputError) << what;
    const std::string located = message_of([&] { parse_json_text(text, "bad.json"); });
    EXPECT_NE(located, "(accepted)") << what;
    // nlohmann's parser locates the syntax error (line, column): the reader gives its message.
    EXPECT_EQ(message_of([&] { reader.parse(text, "bad.json"); }), located) << what;
  }
  try {
    reader.parse(std::string(100, '[') + std::string(100, ']'), "deep.json");
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), "deep.json: nesting deeper than 64 levels");
  }
  // A good record still parses after all those errors.
  EXPECT_NO_THROW(reader.parse(good, "good.json"));
}

TEST(StreamingRecordReader, ReadsFilesWithTheSameFileChecks) {
  StreamingRecordReader reader;
  EXPECT_THROW(reader.read("/nonexistent/record.json"), InputError);
  const std::string dir = ::testing::TempDir();
  const std::string path = dir + "/gate_reader_record.json";
  write_record(path, full_record());
  EXPECT_EQ(to_json(reader.read(path)), to_json(read_record(path)));
}
