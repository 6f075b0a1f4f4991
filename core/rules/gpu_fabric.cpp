#include "core/rules/gpu_fabric.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <yaml-cpp/yaml.h>

#include <fstream>
#include <sstream>

#include "core/base/input_error.hpp"

namespace gpuqual {

namespace {

// nvml.h's values, repeated so that core/ needs no NVML header: NVML_GPU_FABRIC_STATE_*,
// NVML_GPU_FABRIC_HEALTH_MASK_* (shift, width), nvmlDeviceGpuRecoveryAction_t.
constexpr int kStateNotSupported = 0;
constexpr int kStateCompleted = 3;
constexpr unsigned kTrue = 1;                  // _DEGRADED_BW_TRUE, _ROUTE_RECOVERY_TRUE, ... all 1
constexpr unsigned kConfigurationCorrect = 1;  // _INCORRECT_CONFIGURATION_NONE

unsigned mask_field(std::uint32_t mask, unsigned shift, unsigned width) { return (mask >> shift) & width; }

std::string gpu_label(const GpuHealthReading& g) {
  return g.name.empty() ? fmt::format("GPU {}", g.index) : fmt::format("GPU {} ({})", g.index, g.name);
}

Finding make(const SeverityTable& table, const std::string& code, int gpu, std::string detail,
             std::optional<double> value = {}) {
  const SeverityRule& rule = table.finding(code);
  return Finding{.code = code,
                 .severity = rule.severity,
                 .gpu = gpu,
                 .detail = std::move(detail),
                 .action = rule.action,
                 .value = value};
}

std::string fabric_identity(const GpuFabricReading& f) {
  return fmt::format("clique {}, cluster {}", f.clique_id, f.cluster_uuid.empty() ? "-" : f.cluster_uuid);
}

// Registration and the decoded health mask.
void registration_rules(const GpuHealthReading& g, const SeverityTable& t, std::vector<Finding>& out) {
  const std::string who = gpu_label(g);
  if (!g.fabric) {
    if (!g.fabric_unread.empty())
      out.push_back(
          make(t, "fabric.info_unavailable", g.index, who + ": fabric not read: " + g.fabric_unread));
    return;
  }
  const GpuFabricReading& f = *g.fabric;
  if (f.state == kStateNotSupported) {
    out.push_back(make(t, "fabric.info_unavailable", g.index,
                       who + ": fabric state NVML_GPU_FABRIC_STATE_NOT_SUPPORTED (no NVLink fabric)"));
    return;
  }
  if (f.state != kStateCompleted || f.status != 0) {
    const std::string why = f.state != kStateCompleted
                                ? fmt::format("registration {}", fabric_state_name(f.state))
                                : fmt::format("registration completed with {}", f.status_text);
    out.push_back(make(
        t, "fabric.not_registered", g.index,
        fmt::format("{}: not registered with the NVLink fabric: {} ({})", who, why, fabric_identity(f))));
  }
  if (!f.health_mask) return;
  const FabricHealthFields h = decode_fabric_health_mask(*f.health_mask);
  const std::string mask = fmt::format("health mask {:#x}, {}", *f.health_mask, fabric_identity(f));
  if (h.degraded_bw == kTrue)
    out.push_back(
        make(t, "fabric.bandwidth_degraded", g.index, who + ": fabric bandwidth degraded (" + mask + ")"));
  if (h.route_recovery == kTrue)
    out.push_back(make(t, "fabric.route_recovery", g.index,
                       who + ": fabric route recovery in progress (" + mask + ")"));
  if (h.route_unhealthy == kTrue)
    out.push_back(
        make(t, "fabric.route_unhealthy", g.index, who + ": fabric route unhealthy (" + mask + ")"));
  if (h.access_timeout_recovery == kTrue)
    out.push_back(make(t, "fabric.access_timeout_recovery", g.index,
                       who + ": fabric access-timeout recovery in progress (" + mask + ")"));
  if (h.incorrect_configuration > kConfigurationCorrect) {
    out.push_back(make(t, "fabric.incorrect_configuration", g.index,
                       fmt::format("{}: fabric configuration incorrect: {} ({})", who,
                                   incorrect_configuration_name(h.incorrect_configuration), mask)));
  }
}

// The links the class must have, active and at its generation. A PCIe part, and a single GPU
// of its partition with every link down, have no fabric to judge (the generic NVLink rules
// record that); a GPU NVML lists no link for is not judged here either (not read is not down).
void class_rules(const GpuHealthReading& g, const FabricPolicy& p, const SeverityTable& t,
                 std::vector<Finding>& out) {
  auto it = p.nvlink_by_gpu.find(g.index);
  if (it == p.nvlink_by_gpu.end() || g.nvlinks.empty() || p.no_nvlink_fabric.count(g.index)) return;
  const NvLinkClassExpectation& e = it->second;
  std::vector<int> down, slow;
  int active = 0;
  for (const auto& l : g.nvlinks) {
    if (!l.active) {
      down.push_back(l.link);
      continue;
    }
    ++active;
    if (l.version && nvlink_generation(*l.version) > 0 && nvlink_generation(*l.version) < e.nvlink_version)
      slow.push_back(l.link);
  }
  if (active == 0 && p.single_gpu_partition) return;
  const std::string who = gpu_label(g);
  if (active < e.links) {
    out.push_back(make(
        t, "nvlink.below_class", g.index,
        fmt::format("{}: {} of the class's {} NVLink links active ({} listed by NVML; down: {})", who, active,
                    e.links, g.nvlinks.size(), down.empty() ? "-" : fmt::format("{}", fmt::join(down, ","))),
        static_cast<double>(e.links - active)));
  }
  if (!slow.empty()) {
    out.push_back(make(t, "nvlink.slower_than_class", g.index,
                       fmt::format("{}: NVLink link(s) {} below NVLink {} of the class", who,
                                   fmt::join(slow, ","), e.nvlink_version),
                       static_cast<double>(slow.size())));
  }
}

void recovery_rules(const GpuHealthReading& g, const SeverityTable& t, std::vector<Finding>& out) {
  if (!g.recovery_action || *g.recovery_action == 0) return;
  out.push_back(make(t, kRecoveryActionCode, g.index,
                     fmt::format("{}: the driver asks for recovery action: {}", gpu_label(g),
                                 recovery_action_name(*g.recovery_action)),
                     *g.recovery_action));
}

int yaml_int(const YAML::Node& n, const std::string& origin, const std::string& where, int lo, int hi) {
  try {
    const int v = n.as<int>();
    if (v < lo || v > hi) throw InputError(origin, where, fmt::format("{} is outside {}..{}", v, lo, hi));
    return v;
  } catch (const YAML::Exception&) {
    throw InputError(origin, where, "expected an integer");
  }
}

}  // namespace

FabricHealthFields decode_fabric_health_mask(std::uint32_t mask) {
  return FabricHealthFields{
      .degraded_bw = mask_field(mask, 0, 0x3),
      .route_recovery = mask_field(mask, 2, 0x3),
      .route_unhealthy = mask_field(mask, 4, 0x3),
      .access_timeout_recovery = mask_field(mask, 6, 0x3),
      .incorrect_configuration = mask_field(mask, 8, 0xf),
  };
}

std::string incorrect_configuration_name(unsigned value) {
  switch (value) {
    case 0:
      return "not supported";
    case 1:
      return "none (correct)";
    case 2:
      return "incorrect SysGUID";
    case 3:
      return "incorrect chassis serial number";
    case 4:
      return "no partition";
    case 5:
      return "insufficient NVLinks";
    case 6:
      return "incompatible GPU firmware";
    case 7:
      return "invalid location";
    case 8:
      return "GPU state invalid";
    default:
      return fmt::format("configuration error {}", value);
  }
}

std::string fabric_state_name(int state) {
  switch (state) {
    case 0:
      return "not supported";
    case 1:
      return "not started";
    case 2:
      return "in progress";
    case 3:
      return "completed";
    default:
      return fmt::format("state {}", state);
  }
}

int nvlink_generation(int nvml_version) {
  // NVML_NVLINK_VERSION_1_0 = 1, 2_0 = 2, 2_2 = 3, 3_0 = 4, 3_1 = 5, 4_0 = 6, 5_0 = 7, 6_0 = 8.
  static const std::map<int, int> generation{{1, 1}, {2, 2}, {3, 2}, {4, 3}, {5, 3}, {6, 4}, {7, 5}, {8, 6}};
  auto it = generation.find(nvml_version);
  return it == generation.end() ? 0 : it->second;
}

std::string recovery_action_name(int action) {
  static const char* const names[] = {"none",      "GPU reset",       "node reboot",
                                      "drain P2P", "drain and reset", "recover IMEX domain",
                                      "bus reset", "system reboot"};
  if (action >= 0 && action < static_cast<int>(std::size(names))) return names[action];
  return fmt::format("recovery action {}", action);
}

const std::vector<std::string>& gpu_fabric_finding_codes() {
  static const std::vector<std::string> codes{
      "fabric.info_unavailable",        "fabric.not_registered",
      "fabric.bandwidth_degraded",      "fabric.route_recovery",
      "fabric.route_unhealthy",         "fabric.access_timeout_recovery",
      "fabric.incorrect_configuration", "nvlink.below_class",
      "nvlink.slower_than_class",       kRecoveryActionCode};
  return codes;
}

std::vector<Finding> gpu_fabric_findings(const GpuHealthReading& g, const FabricPolicy& policy,
                                         const SeverityTable& table) {
  std::vector<Finding> out;
  registration_rules(g, table, out);
  class_rules(g, policy, table, out);
  recovery_rules(g, table, out);
  return out;
}

void apply_recovery_actions(std::vector<Finding>& findings, const HealthSnapshot& now,
                            const SeverityTable& table) {
  const Severity named = table.finding(kRecoveryActionCode).severity;
  for (Finding& f : findings) {
    if (f.code != "xid.154" || !f.gpu) continue;
    for (const auto& g : now.gpus) {
      if (g.index != *f.gpu || !g.recovery_action) continue;
      f.action = fmt::format("{} (NVML recovery action of GPU {})", recovery_action_name(*g.recovery_action),
                             g.index);
      if (*g.recovery_action != 0 && named > f.severity) f.severity = named;
    }
  }
}

NvLinkClassTable parse_nvlink_expectations(const std::string& yaml, const std::string& origin) {
  YAML::Node root;
  try {
    root = YAML::Load(yaml);
  } catch (const YAML::ParserException& e) {
    throw InputError(origin, "line " + std::to_string(e.mark.line + 1), e.msg);
  }
  if (!root.IsMap() || !root["schema"] || root["schema"].as<std::string>("") != "gpuqual.nvlink-expected/v1")
    throw InputError(origin, "schema", "expected schema: gpuqual.nvlink-expected/v1");
  const YAML::Node classes = root["classes"];
  if (!classes || !classes.IsMap()) throw InputError(origin, "classes", "expected a mapping of class slugs");
  NvLinkClassTable table;
  for (const auto& kv : classes) {
    const std::string slug = kv.first.as<std::string>();
    const std::string where = "classes." + slug;
    if (!kv.second.IsMap() || !kv.second["links"] || !kv.second["nvlink_version"] || !kv.second["source"])
      throw InputError(origin, where, "needs links, nvlink_version and source");
    table[slug] = NvLinkClassExpectation{
        .links = yaml_int(kv.second["links"], origin, where + ".links", 1, 64),
        .nvlink_version = yaml_int(kv.second["nvlink_version"], origin, where + ".nvlink_version", 1, 16),
        .source = kv.second["source"].as<std::string>(""),
    };
  }
  return table;
}

NvLinkClassTable load_nvlink_expectations(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError(path, "", "cannot read the NVLink expectations file");
  std::stringstream text;
  text << in.rdbuf();
  return parse_nvlink_expectations(text.str(), path);
}

}  // namespace gpuqual
