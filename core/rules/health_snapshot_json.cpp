#include "core/rules/health_snapshot_json.hpp"

#include <nlohmann/json.hpp>

#include "core/base/input_error.hpp"
#include "core/base/json_fields.hpp"
#include "core/base/json_input.hpp"

namespace gpuqual {

using nlohmann::json;

namespace {

template <class T>
void put(json& j, const char* key, const std::optional<T>& v) {
  j[key] = v ? json(*v) : json(nullptr);
}

std::optional<std::uint64_t> opt_count(JsonObject& o, const char* key) {
  auto v = o.opt_integer(key, 0);
  if (!v) return std::nullopt;
  return static_cast<std::uint64_t>(*v);
}

std::optional<int> opt_int(JsonObject& o, const char* key, int lo, int hi) {
  auto v = o.opt_integer(key, lo, hi);
  if (!v) return std::nullopt;
  return static_cast<int>(*v);
}

json to_json(const NvLinkReading& l) {
  json j{{"link", l.link}, {"active", l.active}};
  put(j, "replay_errors", l.replay_errors);
  put(j, "recovery_errors", l.recovery_errors);
  put(j, "crc_flit_errors", l.crc_flit_errors);
  put(j, "crc_data_errors", l.crc_data_errors);
  return j;
}

json to_json(const GpuHealthReading& g) {
  json j{{"index", g.index},
         {"name", g.name},
         {"uuid", g.uuid},
         {"pci_bus_id", g.pci_bus_id},
         {"compute_capability", g.compute_capability}};
  if (!g.virtualization_mode.empty()) j["virtualization_mode"] = g.virtualization_mode;
  put(j, "ecc_enabled", g.ecc_enabled);
  put(j, "ecc_pending_enabled", g.ecc_pending_enabled);
  put(j, "ecc_volatile_corrected", g.ecc_volatile_corrected);
  put(j, "ecc_volatile_uncorrected", g.ecc_volatile_uncorrected);
  put(j, "ecc_aggregate_corrected", g.ecc_aggregate_corrected);
  put(j, "ecc_aggregate_uncorrected", g.ecc_aggregate_uncorrected);
  put(j, "ecc_dram_volatile_uncorrected", g.ecc_dram_volatile_uncorrected);
  put(j, "ecc_sram_volatile_uncorrected", g.ecc_sram_volatile_uncorrected);
  put(j, "ecc_sram_aggregate_uncorrected", g.ecc_sram_aggregate_uncorrected);
  put(j, "retired_pages_sbe", g.retired_pages_sbe);
  put(j, "retired_pages_dbe", g.retired_pages_dbe);
  put(j, "retired_pages_pending", g.retired_pages_pending);
  put(j, "remapped_rows_correctable", g.remapped_rows_correctable);
  put(j, "remapped_rows_uncorrectable", g.remapped_rows_uncorrectable);
  put(j, "remap_pending", g.remap_pending);
  put(j, "remap_failure", g.remap_failure);
  put(j, "throttle_reasons", g.throttle_reasons);
  j["throttle_samples"] = g.throttle_samples;
  j["hw_slowdown_samples"] = g.hw_slowdown_samples;
  j["hw_thermal_samples"] = g.hw_thermal_samples;
  j["hw_power_brake_samples"] = g.hw_power_brake_samples;
  j["sw_thermal_samples"] = g.sw_thermal_samples;
  j["sw_power_cap_samples"] = g.sw_power_cap_samples;
  put(j, "temperature_c", g.temperature_c);
  put(j, "slowdown_temp_c", g.slowdown_temp_c);
  put(j, "shutdown_temp_c", g.shutdown_temp_c);
  put(j, "power_limit_w", g.power_limit_w);
  put(j, "default_power_limit_w", g.default_power_limit_w);
  put(j, "pcie_gen", g.pcie_gen);
  put(j, "pcie_width", g.pcie_width);
  put(j, "pcie_max_gen", g.pcie_max_gen);
  put(j, "pcie_max_width", g.pcie_max_width);
  put(j, "pcie_gpu_max_gen", g.pcie_gpu_max_gen);
  j["pcie_read_under_load"] = g.pcie_read_under_load;
  put(j, "pcie_replay_counter", g.pcie_replay_counter);
  json links = json::array();
  for (const auto& l : g.nvlinks) links.push_back(to_json(l));
  j["nvlinks"] = links;
  j["unread"] = g.unread;
  return j;
}

json to_json(const XidEvent& x) {
  json j{{"code", x.code}, {"uuid", x.uuid}, {"time", x.time}, {"during_check", x.during_check}};
  put(j, "gpu", x.gpu);
  return j;
}

NvLinkReading nvlink_from_json(const json& j, const std::string& file, const std::string& path) {
  JsonObject o(j, file, path);
  NvLinkReading l;
  l.link = static_cast<int>(o.integer("link", 0, 63));
  l.active = o.boolean("active");
  l.replay_errors = opt_count(o, "replay_errors");
  l.recovery_errors = opt_count(o, "recovery_errors");
  l.crc_flit_errors = opt_count(o, "crc_flit_errors");
  l.crc_data_errors = opt_count(o, "crc_data_errors");
  o.finish();
  return l;
}

GpuHealthReading gpu_from_json(const json& j, const std::string& file, const std::string& path) {
  JsonObject o(j, file, path);
  GpuHealthReading g;
  g.index = static_cast<int>(o.integer("index", 0, 1023));
  g.name = o.str_or("name", "");
  g.uuid = o.str_or("uuid", "");
  g.pci_bus_id = o.str_or("pci_bus_id", "");
  g.compute_capability = o.str_or("compute_capability", "");
  g.virtualization_mode = o.str_or("virtualization_mode", "");
  g.ecc_enabled = o.opt_boolean("ecc_enabled");
  g.ecc_pending_enabled = o.opt_boolean("ecc_pending_enabled");
  g.ecc_volatile_corrected = opt_count(o, "ecc_volatile_corrected");
  g.ecc_volatile_uncorrected = opt_count(o, "ecc_volatile_uncorrected");
  g.ecc_aggregate_corrected = opt_count(o, "ecc_aggregate_corrected");
  g.ecc_aggregate_uncorrected = opt_count(o, "ecc_aggregate_uncorrected");
  g.ecc_dram_volatile_uncorrected = opt_count(o, "ecc_dram_volatile_uncorrected");
  g.ecc_sram_volatile_uncorrected = opt_count(o, "ecc_sram_volatile_uncorrected");
  g.ecc_sram_aggregate_uncorrected = opt_count(o, "ecc_sram_aggregate_uncorrected");
  g.retired_pages_sbe = opt_count(o, "retired_pages_sbe");
  g.retired_pages_dbe = opt_count(o, "retired_pages_dbe");
  g.retired_pages_pending = o.opt_boolean("retired_pages_pending");
  g.remapped_rows_correctable = opt_count(o, "remapped_rows_correctable");
  g.remapped_rows_uncorrectable = opt_count(o, "remapped_rows_uncorrectable");
  g.remap_pending = o.opt_boolean("remap_pending");
  g.remap_failure = o.opt_boolean("remap_failure");
  g.throttle_reasons = opt_count(o, "throttle_reasons");
  auto samples = [&](const char* key) {
    return static_cast<int>(o.opt_integer(key, 0, 1 << 30).value_or(0));
  };
  g.throttle_samples = samples("throttle_samples");
  g.hw_slowdown_samples = samples("hw_slowdown_samples");
  g.hw_thermal_samples = samples("hw_thermal_samples");
  g.hw_power_brake_samples = samples("hw_power_brake_samples");
  g.sw_thermal_samples = samples("sw_thermal_samples");
  g.sw_power_cap_samples = samples("sw_power_cap_samples");
  g.temperature_c = opt_int(o, "temperature_c", -100, 300);
  g.slowdown_temp_c = opt_int(o, "slowdown_temp_c", -100, 300);
  g.shutdown_temp_c = opt_int(o, "shutdown_temp_c", -100, 300);
  g.power_limit_w = o.opt_number("power_limit_w", 0, 1e5);
  g.default_power_limit_w = o.opt_number("default_power_limit_w", 0, 1e5);
  g.pcie_gen = opt_int(o, "pcie_gen", 0, 16);
  g.pcie_width = opt_int(o, "pcie_width", 0, 64);
  g.pcie_max_gen = opt_int(o, "pcie_max_gen", 0, 16);
  g.pcie_max_width = opt_int(o, "pcie_max_width", 0, 64);
  g.pcie_gpu_max_gen = opt_int(o, "pcie_gpu_max_gen", 0, 16);
  g.pcie_read_under_load = o.opt_boolean("pcie_read_under_load").value_or(false);
  g.pcie_replay_counter = opt_count(o, "pcie_replay_counter");
  if (const json* links = o.opt_array("nvlinks")) {
    const std::string lp = o.child_path("nvlinks");
    for (std::size_t i = 0; i < links->size(); ++i) {
      g.nvlinks.push_back(nvlink_from_json((*links)[i], file, JsonObject::index_path(lp, i)));
    }
  }
  if (o.has("unread")) g.unread = o.string_array("unread");
  o.finish({"unread"});
  return g;
}

XidEvent xid_from_json(const json& j, const std::string& file, const std::string& path) {
  JsonObject o(j, file, path);
  XidEvent x;
  x.code = static_cast<int>(o.integer("code", 0, 100000));
  if (auto g = o.opt_integer("gpu", 0, 1023)) x.gpu = static_cast<int>(*g);
  x.uuid = o.str_or("uuid", "");
  x.time = o.str_or("time", "");
  x.during_check = o.str_or("during_check", "");
  o.finish();
  return x;
}

}  // namespace

json to_json(const HealthSnapshot& s) {
  json gpus = json::array();
  for (const auto& g : s.gpus) gpus.push_back(to_json(g));
  json xids = json::array();
  for (const auto& x : s.xids) xids.push_back(to_json(x));
  json j{{"schema", kHealthSnapshotSchema},
         {"nvml_available", s.nvml_available},
         {"nvml_reason", s.nvml_reason},
         {"driver_version", s.driver_version},
         {"taken_at", s.taken_at},
         {"gpus", gpus},
         {"xids", xids},
         {"nvml_gpu_count", s.nvml_gpu_count ? json(*s.nvml_gpu_count) : json(nullptr)}};
  if (!s.unidentified.empty()) j["unidentified"] = s.unidentified;
  return j;
}

HealthSnapshot health_snapshot_from_json(const json& j, const std::string& file) {
  JsonObject o(j, file, "$");
  const std::string schema = o.str("schema");
  if (schema != kHealthSnapshotSchema) {
    o.fail("schema", "expected \"" + std::string(kHealthSnapshotSchema) + "\", found \"" + schema + "\"");
  }
  HealthSnapshot s;
  s.nvml_available = o.boolean("nvml_available");
  s.nvml_reason = o.str_or("nvml_reason", "");
  if (!s.nvml_available && s.nvml_reason.empty())
    o.fail("nvml_reason", "required when nvml_available is false");
  s.driver_version = o.str_or("driver_version", "");
  s.taken_at = o.str_or("taken_at", "");
  if (auto n = o.opt_integer("nvml_gpu_count", 0, 1024)) s.nvml_gpu_count = static_cast<int>(*n);
  const std::string gp = o.child_path("gpus");
  const json& gpus = o.array("gpus");
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    s.gpus.push_back(gpu_from_json(gpus[i], file, JsonObject::index_path(gp, i)));
    for (std::size_t k = 0; k < i; ++k) {
      if (s.gpus[k].index == s.gpus[i].index) {
        throw InputError(file, JsonObject::index_path(gp, i) + ".index",
                         "duplicate GPU index " + std::to_string(s.gpus[i].index));
      }
    }
  }
  if (const json* xids = o.opt_array("xids")) {
    const std::string xp = o.child_path("xids");
    for (std::size_t i = 0; i < xids->size(); ++i) {
      s.xids.push_back(xid_from_json((*xids)[i], file, JsonObject::index_path(xp, i)));
    }
  }
  if (o.has("unidentified")) s.unidentified = o.string_array("unidentified");
  o.finish();
  return s;
}

HealthSnapshot load_health_snapshot(const std::string& path) {
  return health_snapshot_from_json(read_json_file(path), path);
}

}  // namespace gpuqual
