#include "core/rules/fabric_rules.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "core/base/json_fields.hpp"
#include "core/record/metric_summary.hpp"

namespace gpuqual {

namespace {

// Meanings: Documentation/ABI/stable/sysfs-class-infiniband ("Errors info", "Misc info"); the
// counters are the PortCounters attribute of the InfiniBand Architecture Specification.
// Severities are gpuqual's: growth during a quiet window on a node that is being qualified.
//   fail: the link dropped or delivered corrupt data (a job on it would have failed or retried);
//   warn: the link corrected it (lane errors, retraining that succeeded, discards under load):
//         worth a look at cable and transceiver, not a verdict on its own;
//   info: switch/partition filtering counters, which are policy, not link health.
constexpr std::array kCounters{
    FabricCounterRule{"link_downed", Severity::fail,
                      "the port training state machine failed link error recovery and downed the link"},
    FabricCounterRule{"port_rcv_errors", Severity::fail, "packets containing an error were received"},
    FabricCounterRule{"local_link_integrity_errors", Severity::fail,
                      "local physical errors exceeded the LocalPhyErrors threshold"},
    FabricCounterRule{"excessive_buffer_overrun_errors", Severity::fail,
                      "input buffer overrun (misconfiguration or very poor signal integrity)"},
    FabricCounterRule{"symbol_error", Severity::warn, "minor link errors on one or more physical lanes"},
    FabricCounterRule{"link_error_recovery", Severity::warn,
                      "the link went through error recovery (and recovered)"},
    FabricCounterRule{"port_rcv_remote_physical_errors", Severity::warn,
                      "packets marked with the EBP delimiter received"},
    FabricCounterRule{"port_xmit_discards", Severity::warn,
                      "outbound packets discarded: port down or congested"},
    FabricCounterRule{"VL15_dropped", Severity::info, "incoming VL15 (subnet management) packets dropped"},
    FabricCounterRule{"port_xmit_constraint_errors", Severity::info, "packets not sent: outbound filtering"},
    FabricCounterRule{"port_rcv_constraint_errors", Severity::info, "packets discarded: inbound filtering"},
};

const FabricCounterRule* counter_rule(const std::string& name) {
  for (const auto& c : kCounters)
    if (c.name == name) return &c;
  return nullptr;
}

Status status_of(Severity s) {
  return s == Severity::fail ? Status::fail : s == Severity::warn ? Status::warn : Status::pass;
}

// "6.8.0-45-generic" → {6, 8}; nullopt when it does not start with two numbers.
std::optional<std::pair<int, int>> kernel_major_minor(std::string_view release) {
  int major = 0, minor = 0;
  auto [p1, e1] = std::from_chars(release.data(), release.data() + release.size(), major);
  if (e1 != std::errc() || p1 == release.data() + release.size() || *p1 != '.') return std::nullopt;
  auto [p2, e2] = std::from_chars(p1 + 1, release.data() + release.size(), minor);
  if (e2 != std::errc()) return std::nullopt;
  return std::pair{major, minor};
}

struct Judge {
  const FabricExpectations& expect;
  FabricJudgement out;
  std::vector<std::string> reasons;

  void add(std::string code, Severity sev, std::string detail, std::string action = {},
           std::optional<double> value = std::nullopt) {
    if (sev != Severity::info) {
      out.status = worse_of(out.status, status_of(sev));
      reasons.push_back(detail);
    }
    out.findings.push_back(Finding{
        .code = std::move(code),
        .severity = sev,
        .detail = std::move(detail),
        .action = std::move(action),
        .value = value,
    });
  }
};

bool listed(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

std::string port_id(const FabricHca& h, const FabricPort& p) {
  return fmt::format("{}/{}", h.name, p.number);
}

std::string rate_text(const FabricPort& p) {
  return p.rate_gbps
             ? fmt::format("{:g} Gb/s ({}{}{})", *p.rate_gbps, p.width, p.speed.empty() ? "" : " ", p.speed)
             : std::string("rate unreadable");
}

const FabricPort* find_port(const FabricSnapshot* s, const std::string& hca, int number) {
  if (!s) return nullptr;
  for (const auto& h : s->hcas)
    if (h.name == hca)
      for (const auto& p : h.ports)
        if (p.number == number) return &p;
  return nullptr;
}

constexpr const char* kCheckLink =
    "check the cable, transceiver and switch port; reseat or replace, then re-run";

}  // namespace

std::span<const FabricCounterRule> fabric_error_counters() { return kCounters; }

FabricExpectations parse_fabric_params(const nlohmann::json& params, const std::string& origin) {
  JsonObject o(params, origin, "$");
  FabricExpectations e;
  e.root = o.str_or("root", e.root);
  if (e.root.empty()) o.fail("root", "must not be empty");
  if (o.has("hcas")) e.hcas = o.string_array("hcas");
  if (o.has("ignore")) e.ignore = o.string_array("ignore");
  if (auto n = o.opt_integer("expect_hcas", 0, 1024)) e.expect_hcas = static_cast<int>(*n);
  e.rate_gbps = o.opt_number("expect_rate_gbps", 1, 100000);
  e.width = o.str_or("expect_width", "");
  if (!e.width.empty() && (e.width.back() != 'X' || e.width.size() < 2 ||
                           e.width.find_first_not_of("0123456789") != e.width.size() - 1))
    o.fail("expect_width", fmt::format("'{}' is not a link width like 4X", e.width));
  e.link_layer = o.str_or("expect_link_layer", "");
  if (!e.link_layer.empty() && e.link_layer != "InfiniBand" && e.link_layer != "Ethernet")
    o.fail("expect_link_layer", fmt::format("'{}': expected InfiniBand or Ethernet", e.link_layer));
  e.fw_ver = o.str_or("expect_fw", "");
  e.ports_equal = o.opt_boolean("ports_equal").value_or(true);
  const std::string gd = o.str_or("gpudirect", "record");
  if (gd == "required")
    e.gpudirect = GpuDirectPolicy::required;
  else if (gd != "record")
    o.fail("gpudirect", fmt::format("'{}': expected record or required", gd));
  if (o.has("counters")) {
    e.counters = o.string_array("counters");
    for (const auto& c : e.counters)
      if (!counter_rule(c)) o.fail("counters", fmt::format("unknown error counter '{}'", c));
  } else {
    for (const auto& c : kCounters) e.counters.emplace_back(c.name);
  }
  e.window_s = o.opt_number("window_s", 0, 3600).value_or(e.window_s);
  o.finish();
  return e;
}

// nvidia_peermem: the module NVIDIA ships with the driver since R470 for MLNX_OFED/inbox HCAs
// (GPU Operator, "GPUDirect RDMA"). DMA-BUF: the upstream path NVIDIA recommends instead; it
// needs the NVIDIA Open GPU Kernel Module and the RDMA dma-buf support that Linux 5.12 added
// (ib_umem_dmabuf). docs.nvidia.com/datacenter/cloud-native/gpu-operator/latest/gpu-operator-rdma.html
std::string gpudirect_path(const GpuDirectFacts& f, std::string* why) {
  if (f.peermem_loaded) return "nvidia_peermem";
  std::vector<std::string> missing{"the nvidia_peermem module is not loaded"};
  const auto km = kernel_major_minor(f.kernel_release);
  const bool kernel_ok = km && (km->first > 5 || (km->first == 5 && km->second >= 12));
  if (f.open_kernel_module && kernel_ok) return "dma-buf";
  if (!f.nvidia_module_read)
    missing.push_back("no NVIDIA kernel module (/proc/driver/nvidia/version unreadable)");
  else if (!f.open_kernel_module)
    missing.push_back("the NVIDIA kernel module is the proprietary one (dma-buf needs the open one)");
  if (!kernel_ok)
    missing.push_back(fmt::format("kernel {} (dma-buf needs 5.12 or newer)",
                                  f.kernel_release.empty() ? "unknown" : f.kernel_release));
  if (why) *why = fmt::format("{}", fmt::join(missing, "; "));
  return "";
}

namespace {

// Which HCAs are in scope (listed, else all, less the ignored ones); a listed or expected HCA
// that is not there is a finding.
std::vector<const FabricHca*> hcas_in_scope(const FabricSnapshot& after, const FabricExpectations& expect,
                                            Judge& j) {
  std::vector<const FabricHca*> scope;
  for (const auto& h : after.hcas) {
    if (listed(expect.ignore, h.name)) continue;
    if (!expect.hcas.empty() && !listed(expect.hcas, h.name)) continue;
    scope.push_back(&h);
  }
  for (const auto& want : expect.hcas) {
    const bool found =
        std::any_of(after.hcas.begin(), after.hcas.end(), [&](const FabricHca& h) { return h.name == want; });
    if (!found)
      j.add("fabric.hca_missing", Severity::fail, fmt::format("HCA {} is listed but not present", want),
            "check that the adapter's driver is loaded (lspci, dmesg) and the card is seated");
  }
  if (expect.expect_hcas && static_cast<int>(scope.size()) < *expect.expect_hcas)
    j.add("fabric.hca_missing", Severity::fail,
          fmt::format("{} HCA(s) in scope, expected {}", scope.size(), *expect.expect_hcas),
          "check that every adapter's driver is loaded (lspci, dmesg) and the cards are seated",
          static_cast<double>(scope.size()));
  return scope;
}

// Firmware: the expected version, else one version per adapter type.
void judge_firmware(const std::vector<const FabricHca*>& scope, const FabricExpectations& expect, Judge& j) {
  std::map<std::string, std::set<std::string>> fw_by_type;
  for (const FabricHca* h : scope) {
    if (!expect.fw_ver.empty() && h->fw_ver != expect.fw_ver)
      j.add("fabric.firmware", Severity::fail,
            fmt::format("{} runs firmware {}, expected {}", h->name, h->fw_ver, expect.fw_ver),
            "flash the expected firmware (mlxfwmanager / mstflint) and reset the adapter");
    fw_by_type[h->hca_type].insert(h->fw_ver);
  }
  if (expect.fw_ver.empty()) {
    for (const auto& [type, versions] : fw_by_type)
      if (versions.size() > 1)
        j.add("fabric.firmware_mismatch", Severity::warn,
              fmt::format("HCAs of type {} run different firmware: {}", type.empty() ? "(unknown)" : type,
                          fmt::join(versions, ", ")),
              "bring every adapter of the type to one firmware version");
  }
}

// One port: state, physical state, link layer, rate and width. Whether it is up (ACTIVE and
// LinkUp), which is when its rate is recorded and compared with the other ports.
bool judge_port(const FabricHca& h, const FabricPort& p, const FabricExpectations& expect, Judge& j) {
  const std::string id = port_id(h, p);
  if (p.state != "ACTIVE") {
    j.add("fabric.port_down", Severity::fail,
          fmt::format("{} is {} (physical state {})", id, p.state.empty() ? "unreadable" : p.state,
                      p.phys_state.empty() ? "unreadable" : p.phys_state),
          p.phys_state == "LinkUp" ? "the link trained but no subnet manager brought it up: check the SM"
                                   : kCheckLink);
    return false;
  }
  if (p.phys_state != "LinkUp") {
    j.add("fabric.phys_state", Severity::fail,
          fmt::format("{} is ACTIVE but its physical state is {}", id, p.phys_state), kCheckLink);
    return false;
  }
  if (!expect.link_layer.empty() && p.link_layer != expect.link_layer)
    j.add("fabric.link_layer", Severity::fail,
          fmt::format("{} link layer is {}, expected {}", id, p.link_layer, expect.link_layer),
          "set the port type (mlxconfig LINK_TYPE_P1) and reset the adapter");
  if (expect.rate_gbps && (!p.rate_gbps || *p.rate_gbps < *expect.rate_gbps))
    j.add("fabric.rate_degraded", Severity::fail,
          fmt::format("{} runs at {}, expected {:g} Gb/s", id, rate_text(p), *expect.rate_gbps), kCheckLink,
          p.rate_gbps);
  else if (!expect.width.empty() && p.width != expect.width)
    j.add("fabric.rate_degraded", Severity::fail,
          fmt::format("{} runs at {}, expected width {}", id, rate_text(p), expect.width), kCheckLink,
          p.rate_gbps);
  if (p.rate_gbps)
    j.out.metrics.push_back(summarize_metric(fmt::format("fabric.{}.p{}.rate_gbps", h.name, p.number), "Gb/s",
                                             Direction::higher, std::nullopt, {*p.rate_gbps}));
  return true;
}

using ActivePorts = std::vector<std::pair<const FabricHca*, const FabricPort*>>;

// Every port of the scope not ignored; the ones that are up.
ActivePorts judge_ports(const std::vector<const FabricHca*>& scope, const FabricExpectations& expect,
                        Judge& j) {
  ActivePorts active;
  for (const FabricHca* h : scope) {
    for (const auto& p : h->ports) {
      if (listed(expect.ignore, port_id(*h, p))) continue;
      ++j.out.ports_judged;
      if (judge_port(*h, p, expect, j)) active.emplace_back(h, &p);
    }
  }
  return active;
}

// All ports equal: against the fastest ACTIVE port of the same link layer.
void judge_ports_equal(const ActivePorts& active, Judge& j) {
  std::map<std::string, std::pair<const FabricHca*, const FabricPort*>> fastest;
  for (const auto& [h, p] : active) {
    auto& best = fastest[p->link_layer];
    if (!best.second || p->rate_gbps.value_or(0) > best.second->rate_gbps.value_or(0)) best = {h, p};
  }
  for (const auto& [h, p] : active) {
    const auto& [bh, bp] = fastest[p->link_layer];
    if (bp == p) continue;
    if (p->rate_gbps.value_or(0) < bp->rate_gbps.value_or(0) || p->width != bp->width)
      j.add("fabric.rate_mismatch", Severity::fail,
            fmt::format("{} runs at {}, {} at {}", port_id(*h, *p), rate_text(*p), port_id(*bh, *bp),
                        rate_text(*bp)),
            kCheckLink, p->rate_gbps);
  }
}

// The error counters of port `p` of `h` that grew since `b`, its reading at the window's start.
void judge_counter_growth(const FabricHca& h, const FabricPort& p, const FabricPort& b,
                          const FabricExpectations& expect, Judge& j) {
  for (const auto& name : expect.counters) {
    auto a_it = p.counters.find(name);
    auto b_it = b.counters.find(name);
    if (a_it == p.counters.end() || b_it == b.counters.end()) continue;
    // A counter that went down was reset (perfquery -x -r, a driver reload): not growth.
    if (a_it->second <= b_it->second) continue;
    const auto grown = a_it->second - b_it->second;
    const FabricCounterRule* rule = counter_rule(name);
    j.add("fabric.counter_grew", rule ? rule->growth : Severity::warn,
          fmt::format("{} {} grew by {} ({} → {}): {}", port_id(h, p), name, grown, b_it->second,
                      a_it->second, rule ? rule->meaning : "error counter"),
          kCheckLink, static_cast<double>(grown));
  }
}

// Counter growth over the window, port by port.
void judge_counters(const std::vector<const FabricHca*>& scope, const FabricSnapshot& before,
                    const FabricExpectations& expect, Judge& j) {
  for (const FabricHca* h : scope) {
    for (const auto& p : h->ports) {
      if (listed(expect.ignore, port_id(*h, p))) continue;
      const FabricPort* b = find_port(&before, h->name, p.number);
      if (!b) continue;
      judge_counter_growth(*h, p, *b, expect, j);
    }
  }
}

// GPUDirect RDMA: a finding when no path is available (fail when the suite requires it).
void judge_gpudirect(const GpuDirectFacts& gpudirect, const FabricExpectations& expect, Judge& j) {
  std::string why;
  const std::string path = gpudirect_path(gpudirect, &why);
  if (path.empty()) {
    j.add("fabric.gpudirect", expect.gpudirect == GpuDirectPolicy::required ? Severity::fail : Severity::info,
          fmt::format("GPUDirect RDMA not available: {}", why),
          "load nvidia_peermem (GPU Operator driver.rdma.enabled) or use the open kernel module on Linux "
          "5.12+");
  }
}

}  // namespace

FabricJudgement judge_fabric(const FabricSnapshot& after, const FabricSnapshot* before,
                             const GpuDirectFacts& gpudirect, const FabricExpectations& expect) {
  Judge j{expect, {}, {}};
  const std::vector<const FabricHca*> scope = hcas_in_scope(after, expect, j);
  j.out.hcas_judged = static_cast<int>(scope.size());
  judge_firmware(scope, expect, j);
  const ActivePorts active = judge_ports(scope, expect, j);
  if (expect.ports_equal && !expect.rate_gbps && expect.width.empty()) judge_ports_equal(active, j);
  if (before) judge_counters(scope, *before, expect, j);
  judge_gpudirect(gpudirect, expect, j);
  j.out.reason = fmt::format("{}", fmt::join(j.reasons, "; "));
  return j.out;
}

}  // namespace gpuqual
