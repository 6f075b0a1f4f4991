#include "core/record/record_json.hpp"

#include <nlohmann/json.hpp>

#include "core/record/mig_inventory_json.hpp"
#include "core/record/record_reader.hpp"
#include "core/record/stack_inventory_json.hpp"

namespace gpuqual {

using nlohmann::json;

std::string_view to_string(Direction d) { return d == Direction::higher ? "higher" : "lower"; }

std::optional<Direction> parse_direction(std::string_view text) {
  if (text == "higher") return Direction::higher;
  if (text == "lower") return Direction::lower;
  return std::nullopt;
}

std::string_view to_string(Severity s) {
  switch (s) {
    case Severity::info:
      return "info";
    case Severity::warn:
      return "warn";
    case Severity::fail:
      return "fail";
  }
  return "fail";
}

std::optional<Severity> parse_severity(std::string_view text) {
  if (text == "info") return Severity::info;
  if (text == "warn") return Severity::warn;
  if (text == "fail") return Severity::fail;
  return std::nullopt;
}

namespace {

template <class T>
void put_opt(json& j, const char* key, const std::optional<T>& v) {
  j[key] = v ? json(*v) : json(nullptr);
}

json gpu_or_null(const std::optional<int>& gpu) { return gpu ? json(*gpu) : json(nullptr); }

json to_json(const GpuInfo& g) {
  json j{{"index", g.index},
         {"name", g.name},
         {"uuid", g.uuid},
         {"pci_bus_id", g.pci_bus_id},
         {"compute_capability", g.compute_capability},
         {"sm_count", g.sm_count},
         {"memory_bytes", g.memory_bytes},
         {"vbios", g.vbios}};
  put_opt(j, "ecc_enabled", g.ecc_enabled);
  put_opt(j, "mig_enabled", g.mig_enabled);
  put_opt(j, "persistence_enabled", g.persistence_enabled);
  put_opt(j, "pcie_max_gen", g.pcie_max_gen);
  put_opt(j, "pcie_max_width", g.pcie_max_width);
  put_opt(j, "power_limit_w", g.power_limit_w);
  put_opt(j, "nvlink_count", g.nvlink_count);
  if (!g.virtualization_mode.empty()) j["virtualization_mode"] = g.virtualization_mode;
  if (g.mig) j["mig"] = mig_to_json(*g.mig);
  if (!g.nvml_unread.empty()) j["nvml_unread"] = g.nvml_unread;
  return j;
}

// Facts added within v1 are written only when read, so records of older gpuqual versions
// round-trip unchanged and readers take their absence as "not read".
void put_nonempty(json& j, const char* key, const std::string& v) {
  if (!v.empty()) j[key] = v;
}

json to_json(const NodeFacts& n) {
  json j{{"hostname", n.hostname},
         {"kernel", n.kernel},
         {"os", n.os},
         {"cpu_model", n.cpu_model},
         {"driver_version", n.driver_version},
         {"cuda_driver_version", n.cuda_driver_version},
         {"cuda_runtime_version", n.cuda_runtime_version},
         {"cublas_version", n.cublas_version},
         {"nccl_version", n.nccl_version},
         {"container_runtimes", n.container_runtimes},
         {"k8s_node_name", n.k8s_node_name},
         {"k8s_labels", n.k8s_labels}};
  put_opt(j, "numa_nodes", n.numa_nodes);
  if (n.pci_gpus) {
    json pci = json::array();
    for (const auto& p : *n.pci_gpus) {
      pci.push_back(
          {{"bus_id", p.bus_id}, {"device_id", p.device_id}, {"class", p.pci_class}, {"driver", p.driver}});
    }
    j["pci_gpus"] = pci;
  }
  put_nonempty(j, "arch", n.arch);
  put_nonempty(j, "kernel_module_version", n.kernel_module_version);
  put_nonempty(j, "nvml_driver_version", n.nvml_driver_version);
  put_nonempty(j, "nvml_cuda_driver_version", n.nvml_cuda_driver_version);
  put_nonempty(j, "libcuda_version", n.libcuda_version);
  put_nonempty(j, "boot_id", n.boot_id);
  put_nonempty(j, "visible_devices", n.visible_devices);
  if (!n.nvml_devices_unread.empty()) j["nvml_devices_unread"] = n.nvml_devices_unread;
  if (n.uptime_s) j["uptime_s"] = *n.uptime_s;
  if (n.stack) j["stack"] = to_json(*n.stack);
  return j;
}

}  // namespace

json to_json(const Metric& m) {
  json j{{"name", m.name},
         {"unit", m.unit},
         {"direction", to_string(m.direction)},
         {"gpu", gpu_or_null(m.gpu)},
         {"median", m.median},
         {"samples", m.samples},
         {"n", m.samples.size()},
         {"cv", m.cv},
         {"min", m.min},
         {"max", m.max},
         {"throttled_samples", m.throttled_samples}};
  put_nonempty(j, "mig_device", m.mig_device);
  return j;
}

json to_json(const Finding& f) {
  json j{{"code", f.code},
         {"severity", to_string(f.severity)},
         {"gpu", gpu_or_null(f.gpu)},
         {"detail", f.detail},
         {"action", f.action}};
  put_opt(j, "value", f.value);
  put_nonempty(j, "mig_device", f.mig_device);
  return j;
}

json to_json(const CheckResult& c) {
  json per_gpu = json::array();
  for (const auto& g : c.per_gpu) {
    json gj{{"gpu", g.gpu}, {"status", to_string(g.status)}, {"reason", g.reason}};
    if (!g.reason_code.empty()) gj["reason_code"] = g.reason_code;
    put_nonempty(gj, "mig_device", g.mig_device);
    per_gpu.push_back(std::move(gj));
  }
  json metrics = json::array();
  for (const auto& m : c.metrics) metrics.push_back(to_json(m));
  json findings = json::array();
  for (const auto& f : c.findings) findings.push_back(to_json(f));
  json j{{"name", c.name},
         {"status", to_string(c.status)},
         {"reason", c.reason},
         {"started_at", c.started_at},
         {"duration_s", c.duration_s},
         {"per_gpu", per_gpu},
         {"metrics", metrics},
         {"findings", findings},
         {"attributes", c.attributes}};
  // Written only when set, so records without them read as before.
  if (!c.reason_code.empty()) j["reason_code"] = c.reason_code;
  if (c.optional) j["optional"] = true;
  return j;
}

json to_json(const RunRecord& r) {
  json gpus = json::array();
  for (const auto& g : r.gpus) gpus.push_back(to_json(g));
  json checks = json::array();
  for (const auto& c : r.checks) checks.push_back(to_json(c));
  json hw{{"slug", r.hardware_class.slug},
          {"gpu_count", r.hardware_class.gpu_count},
          {"product", r.hardware_class.product},
          {"overridden", r.hardware_class.overridden}};
  put_opt(hw, "memory_mib", r.hardware_class.memory_mib);
  return json{{"schema", r.schema},
              {"tool", {{"version", r.tool.version}, {"git_revision", r.tool.git_revision}}},
              {"run_id", r.run_id},
              {"started_at", r.started_at},
              {"ended_at", r.ended_at},
              {"complete", r.complete},
              {"argv", r.argv},
              {"suite", r.suite},
              {"node", to_json(r.node)},
              {"hardware_class", hw},
              {"gpus", gpus},
              {"checks", checks}};
}

namespace {

// A tree already parsed (a task file's inventory, a finding inside a verdict or a rank report)
// is read as text by the one reader, so the record's rules exist once (record_reader.cpp).
StreamingRecordReader& tree_reader() {
  thread_local StreamingRecordReader reader;
  return reader;
}

}  // namespace

RunRecord record_from_json(const json& j, const std::string& file) {
  return tree_reader().parse(j.dump(), file);
}

Finding finding_from_json(const json& j, const std::string& file, const std::string& path) {
  return tree_reader().parse_finding(j.dump(), file, path);
}

CheckResult check_from_json(const json& j, const std::string& file, const std::string& path) {
  return tree_reader().parse_check(j.dump(), file, path);
}

}  // namespace gpuqual
