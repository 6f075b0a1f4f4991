#include "core/record/record_json.hpp"

#include <fmt/format.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <set>

#include "core/record/hardware_class.hpp"
#include "core/base/input_error.hpp"
#include "core/base/json_fields.hpp"
#include "core/record/metric_summary.hpp"
#include "core/record/skip_reason.hpp"
#include "core/record/stack_inventory_json.hpp"
#include "core/base/units.hpp"

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
    case Severity::info: return "info";
    case Severity::warn: return "warn";
    case Severity::fail: return "fail";
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

// A not-applicable code (core/record/skip_reason.hpp) belongs to a skip; an unknown code is refused
// rather than read as "could not measure", so a typo cannot change a verdict silently.
std::string read_reason_code(JsonObject& o, Status status) {
  std::string code = o.str_or("reason_code", "");
  if (code.empty()) return code;
  if (status != Status::skip) o.fail("reason_code", fmt::format("a reason code belongs to a skip, not to {}", to_string(status)));
  if (!is_not_applicable_code(code)) o.fail("reason_code", fmt::format("unknown reason code \"{}\"", code));
  return code;
}

json gpu_or_null(const std::optional<int>& gpu) { return gpu ? json(*gpu) : json(nullptr); }

std::optional<int> read_gpu(JsonObject& o) {
  auto g = o.opt_integer("gpu", 0, 1023);
  if (!g) return std::nullopt;
  return static_cast<int>(*g);
}

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
      pci.push_back({{"bus_id", p.bus_id}, {"device_id", p.device_id}, {"class", p.pci_class}, {"driver", p.driver}});
    }
    j["pci_gpus"] = pci;
  }
  put_nonempty(j, "kernel_module_version", n.kernel_module_version);
  put_nonempty(j, "nvml_driver_version", n.nvml_driver_version);
  put_nonempty(j, "nvml_cuda_driver_version", n.nvml_cuda_driver_version);
  put_nonempty(j, "libcuda_version", n.libcuda_version);
  put_nonempty(j, "boot_id", n.boot_id);
  put_nonempty(j, "visible_devices", n.visible_devices);
  if (n.uptime_s) j["uptime_s"] = *n.uptime_s;
  if (n.stack) j["stack"] = to_json(*n.stack);
  return j;
}

GpuInfo gpu_from_json(const json& j, const std::string& file, const std::string& path) {
  JsonObject o(j, file, path);
  GpuInfo g;
  g.index = static_cast<int>(o.integer("index", 0, 1023));
  g.name = o.str("name");
  g.uuid = o.str("uuid");
  g.pci_bus_id = o.str("pci_bus_id");
  g.compute_capability = o.str("compute_capability");
  g.sm_count = static_cast<int>(o.integer("sm_count", 0, 100000));
  g.memory_bytes = static_cast<std::uint64_t>(o.integer("memory_bytes", 0));
  g.vbios = o.str("vbios");
  g.ecc_enabled = o.opt_boolean("ecc_enabled");
  g.mig_enabled = o.opt_boolean("mig_enabled");
  g.persistence_enabled = o.opt_boolean("persistence_enabled");
  if (auto v = o.opt_integer("pcie_max_gen", 1, 16)) g.pcie_max_gen = static_cast<int>(*v);
  if (auto v = o.opt_integer("pcie_max_width", 1, 64)) g.pcie_max_width = static_cast<int>(*v);
  g.power_limit_w = o.opt_number("power_limit_w", 0);
  if (auto v = o.opt_integer("nvlink_count", 0, 64)) g.nvlink_count = static_cast<int>(*v);
  g.virtualization_mode = o.str_or("virtualization_mode", "");
  o.finish();
  return g;
}

NodeFacts node_from_json(const json& j, const std::string& file, const std::string& path) {
  JsonObject o(j, file, path);
  NodeFacts n;
  n.hostname = o.str("hostname");
  n.kernel = o.str("kernel");
  n.os = o.str("os");
  n.cpu_model = o.str("cpu_model");
  if (auto v = o.opt_integer("numa_nodes", 0, 4096)) n.numa_nodes = static_cast<int>(*v);
  n.driver_version = o.str("driver_version");
  n.cuda_driver_version = o.str("cuda_driver_version");
  n.cuda_runtime_version = o.str("cuda_runtime_version");
  n.cublas_version = o.str("cublas_version");
  n.nccl_version = o.str("nccl_version");
  n.container_runtimes = o.string_array("container_runtimes");
  n.k8s_node_name = o.str("k8s_node_name");
  const json& labels = o.object("k8s_labels");
  for (auto it = labels.begin(); it != labels.end(); ++it) {
    if (!it->is_string()) o.fail("k8s_labels." + it.key(), "label value must be a string");
    n.k8s_labels[it.key()] = it->get<std::string>();
  }
  if (const json* pci = o.opt_array("pci_gpus")) {
    const std::string pci_path = o.child_path("pci_gpus");
    n.pci_gpus.emplace();
    for (std::size_t i = 0; i < pci->size(); ++i) {
      JsonObject p((*pci)[i], file, JsonObject::index_path(pci_path, i));
      n.pci_gpus->push_back(PciGpu{p.nonempty_str("bus_id"), p.str("device_id"), p.str("class"), p.str("driver")});
      p.finish();
    }
  }
  n.kernel_module_version = o.str_or("kernel_module_version", "");
  n.nvml_driver_version = o.str_or("nvml_driver_version", "");
  n.nvml_cuda_driver_version = o.str_or("nvml_cuda_driver_version", "");
  n.libcuda_version = o.str_or("libcuda_version", "");
  n.boot_id = o.str_or("boot_id", "");
  n.visible_devices = o.str_or("visible_devices", "");
  n.uptime_s = o.opt_number("uptime_s", 0);
  if (const json* stack = o.opt_object("stack")) n.stack = stack_from_json(*stack, file, o.child_path("stack"));
  o.finish();
  return n;
}

}  // namespace

json to_json(const Metric& m) {
  return json{{"name", m.name},     {"unit", m.unit}, {"direction", to_string(m.direction)},
              {"gpu", gpu_or_null(m.gpu)}, {"median", m.median}, {"samples", m.samples},
              {"n", m.samples.size()}, {"cv", m.cv}, {"min", m.min}, {"max", m.max},
              {"throttled_samples", m.throttled_samples}};
}

json to_json(const Finding& f) {
  json j{{"code", f.code},   {"severity", to_string(f.severity)}, {"gpu", gpu_or_null(f.gpu)},
         {"detail", f.detail}, {"action", f.action}};
  put_opt(j, "value", f.value);
  return j;
}

json to_json(const CheckResult& c) {
  json per_gpu = json::array();
  for (const auto& g : c.per_gpu) {
    json gj{{"gpu", g.gpu}, {"status", to_string(g.status)}, {"reason", g.reason}};
    if (!g.reason_code.empty()) gj["reason_code"] = g.reason_code;
    per_gpu.push_back(std::move(gj));
  }
  json metrics = json::array();
  for (const auto& m : c.metrics) metrics.push_back(to_json(m));
  json findings = json::array();
  for (const auto& f : c.findings) findings.push_back(to_json(f));
  json j{{"name", c.name},         {"status", to_string(c.status)}, {"reason", c.reason},
         {"started_at", c.started_at}, {"duration_s", c.duration_s}, {"per_gpu", per_gpu},
         {"metrics", metrics},     {"findings", findings},       {"attributes", c.attributes}};
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

Metric metric_from_json(const json& j, const std::string& file, const std::string& path) {
  JsonObject o(j, file, path);
  Metric m;
  m.name = o.nonempty_str("name");
  m.unit = o.str("unit");
  if (!is_known_unit(m.unit)) o.fail("unit", fmt::format("unknown unit \"{}\"", m.unit));
  const std::string dir = o.str("direction");
  auto d = parse_direction(dir);
  if (!d) o.fail("direction", fmt::format("unknown direction \"{}\" (expected higher or lower)", dir));
  m.direction = *d;
  m.gpu = read_gpu(o);
  // Every unit gpuqual measures is a magnitude: a negative bandwidth or time is corrupt data.
  m.median = o.number("median", 0);
  m.samples = o.number_array("samples", 0);
  const auto n = o.integer("n", 0);
  if (static_cast<std::size_t>(n) != m.samples.size()) {
    o.fail("n", fmt::format("n is {} but there are {} samples", n, m.samples.size()));
  }
  m.cv = o.number("cv", 0);
  m.min = o.number("min", 0);
  m.max = o.number("max", 0);
  m.throttled_samples = static_cast<int>(o.opt_integer("throttled_samples", 0, n).value_or(0));
  if (!m.samples.empty() && (m.median < m.min || m.median > m.max || m.min > m.max)) {
    o.fail("median", fmt::format("median {} is not within [min {}, max {}]", m.median, m.min, m.max));
  }
  // Judging uses the numbers recomputed from the samples; a stored summary that says otherwise
  // (samples all 500, median 771) is a corrupt or edited record.
  if (auto mismatch = recompute_summary(m)) o.fail(mismatch->field, mismatch->problem);
  o.finish();
  return m;
}

Finding finding_from_json(const json& j, const std::string& file, const std::string& path) {
  JsonObject o(j, file, path);
  Finding f;
  f.code = o.nonempty_str("code");
  const std::string sev = o.str("severity");
  auto s = parse_severity(sev);
  if (!s) o.fail("severity", fmt::format("unknown severity \"{}\" (expected info, warn or fail)", sev));
  f.severity = *s;
  f.gpu = read_gpu(o);
  f.detail = o.str("detail");
  f.action = o.str_or("action", "");
  f.value = o.opt_number("value");
  o.finish();
  return f;
}

CheckResult check_from_json(const json& j, const std::string& file, const std::string& path) {
  JsonObject o(j, file, path);
  CheckResult c;
  c.name = o.nonempty_str("name");
  const std::string st = o.str("status");
  auto s = parse_status(st);
  if (!s) o.fail("status", fmt::format("unknown status \"{}\"", st));
  c.status = *s;
  c.reason = o.str("reason");
  if (c.reason.empty() && (c.status == Status::skip || c.status == Status::error || c.status == Status::fail)) {
    o.fail("reason", fmt::format("a {} status needs a reason", st));
  }
  c.reason_code = read_reason_code(o, c.status);
  c.optional = o.opt_boolean("optional").value_or(false);
  c.started_at = o.str("started_at");
  c.duration_s = o.number("duration_s", 0);
  const std::string pg_path = o.child_path("per_gpu");
  const json& per_gpu = o.array("per_gpu");
  for (std::size_t i = 0; i < per_gpu.size(); ++i) {
    JsonObject g(per_gpu[i], file, JsonObject::index_path(pg_path, i));
    GpuCheckStatus gs;
    gs.gpu = static_cast<int>(g.integer("gpu", 0, 1023));
    const std::string gst = g.str("status");
    auto gs_status = parse_status(gst);
    if (!gs_status) g.fail("status", fmt::format("unknown status \"{}\"", gst));
    gs.status = *gs_status;
    gs.reason = g.str("reason");
    gs.reason_code = read_reason_code(g, gs.status);
    g.finish();
    c.per_gpu.push_back(gs);
  }
  const std::string m_path = o.child_path("metrics");
  const json& metrics = o.array("metrics");
  for (std::size_t i = 0; i < metrics.size(); ++i) {
    c.metrics.push_back(metric_from_json(metrics[i], file, JsonObject::index_path(m_path, i)));
  }
  const std::string f_path = o.child_path("findings");
  const json& findings = o.array("findings");
  for (std::size_t i = 0; i < findings.size(); ++i) {
    c.findings.push_back(finding_from_json(findings[i], file, JsonObject::index_path(f_path, i)));
  }
  const json& attrs = o.object("attributes");
  for (auto it = attrs.begin(); it != attrs.end(); ++it) {
    if (!it->is_string()) o.fail("attributes." + it.key(), "attribute values are strings");
    c.attributes[it.key()] = it->get<std::string>();
  }
  o.finish();
  return c;
}

RunRecord record_from_json(const json& j, const std::string& file) {
  JsonObject o(j, file, "$");
  RunRecord r;
  r.schema = o.str("schema");
  if (r.schema != kRunSchema) {
    o.fail("schema", fmt::format("unsupported schema \"{}\" (this gpuqual reads {})", r.schema, kRunSchema));
  }
  {
    JsonObject t(o.object("tool"), file, o.child_path("tool"));
    r.tool.version = t.str("version");
    r.tool.git_revision = t.str("git_revision");
    t.finish();
  }
  r.run_id = o.nonempty_str("run_id");
  r.started_at = o.str("started_at");
  r.ended_at = o.str("ended_at");
  r.complete = o.boolean("complete");
  r.argv = o.string_array("argv");
  r.suite = o.str("suite");
  r.node = node_from_json(o.object("node"), file, o.child_path("node"));
  {
    JsonObject h(o.object("hardware_class"), file, o.child_path("hardware_class"));
    r.hardware_class.slug = h.nonempty_str("slug");
    r.hardware_class.gpu_count = static_cast<int>(h.integer("gpu_count", 0, 1024));
    r.hardware_class.product = h.str("product");
    if (auto mib = h.opt_integer("memory_mib", 0)) r.hardware_class.memory_mib = static_cast<std::uint64_t>(*mib);
    r.hardware_class.overridden = h.boolean("overridden");
    h.finish();
  }
  const std::string g_path = o.child_path("gpus");
  const json& gpus = o.array("gpus");
  std::set<int> indices;
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    const std::string p = JsonObject::index_path(g_path, i);
    GpuInfo g = gpu_from_json(gpus[i], file, p);
    if (!indices.insert(g.index).second) {
      throw InputError(file, p + ".index", fmt::format("duplicate GPU index {}", g.index));
    }
    r.gpus.push_back(std::move(g));
  }
  // The same rule in gate_record_reader.cpp (docs/hardware-class.md, "Identity").
  if (auto bad = gpu_identity_problem(r.hardware_class, r.gpus))
    throw InputError(file, bad->field, bad->problem);
  const std::string c_path = o.child_path("checks");
  const json& checks = o.array("checks");
  for (std::size_t i = 0; i < checks.size(); ++i) {
    const std::string p = JsonObject::index_path(c_path, i);
    CheckResult c = check_from_json(checks[i], file, p);
    // Every GPU a check names must be a GPU of the record.
    auto check_gpu = [&](const std::optional<int>& gpu, const std::string& where) {
      if (gpu && !indices.count(*gpu)) throw InputError(file, where, fmt::format("GPU {} is not in $.gpus", *gpu));
    };
    for (std::size_t k = 0; k < c.metrics.size(); ++k) {
      check_gpu(c.metrics[k].gpu, JsonObject::index_path(p + ".metrics", k) + ".gpu");
    }
    for (std::size_t k = 0; k < c.findings.size(); ++k) {
      check_gpu(c.findings[k].gpu, JsonObject::index_path(p + ".findings", k) + ".gpu");
    }
    for (std::size_t k = 0; k < c.per_gpu.size(); ++k) {
      check_gpu(c.per_gpu[k].gpu, JsonObject::index_path(p + ".per_gpu", k) + ".gpu");
    }
    r.checks.push_back(std::move(c));
  }
  o.finish();
  return r;
}

}  // namespace gpuqual
