#include "core/rules/mig_layout.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <set>

#include "core/base/input_error.hpp"
#include "core/base/json_fields.hpp"
#include "core/base/text_case.hpp"
#include "core/base/yaml_tree.hpp"
#include "core/record/gpu_match.hpp"
#include "core/record/mig_inventory.hpp"

namespace gpuqual {

namespace {

using nlohmann::json;

// `devices: all` or `devices: [0, 1]`, and `device-filter: "0x233010DE"` or a list of them (read
// from the tree: either shape is allowed, which the typed accessors cannot say).
void read_devices(const json& j, JsonObject& o, MigConfigEntry& e) {
  const auto d = j.find("devices");
  if (d == j.end()) o.fail("devices", "missing: all or a list of GPU indices");
  if (d->is_string() && d->get<std::string>() == "all") {
    e.all_devices = true;
  } else if (d->is_array()) {
    for (const json& i : *d) {
      if (!i.is_number_integer() || i.get<int>() < 0)
        o.fail("devices", "expected all or a list of GPU indices");
      e.devices.push_back(i.get<int>());
    }
  } else {
    o.fail("devices", "expected all or a list of GPU indices");
  }
  const auto f = j.find("device-filter");
  if (f == j.end()) return;
  for (const json& one : f->is_array() ? *f : json::array({*f})) {
    if (!one.is_string()) o.fail("device-filter", "expected a PCI id (0x233010DE) or a list of them");
    e.device_filter.push_back(to_lower(one.get<std::string>()));
  }
}

MigConfigEntry entry_from(const json& j, const std::string& file, const std::string& path) {
  JsonObject o(j, file, path);
  MigConfigEntry e;
  read_devices(j, o, e);
  e.mig_enabled = o.boolean("mig-enabled");
  if (const json* devices = o.opt_object("mig-devices")) {
    JsonObject d(*devices, file, o.child_path("mig-devices"));
    for (const auto& [profile, count] : devices->items()) {
      e.mig_devices[profile] = static_cast<int>(d.integer(profile, 0, 64));
    }
    d.finish();
  }
  if (!e.mig_enabled && !e.mig_devices.empty())
    o.fail("mig-devices", "MIG devices on a GPU with mig-enabled: false");
  o.finish({"devices", "device-filter"});
  return e;
}

MigManagerConfig config_from(const json& root, const std::string& file, const std::string& path) {
  JsonObject o(root, file, path);
  if (o.has("version") && o.str("version") != "v1")
    o.fail("version", "this gpuqual reads the MIG manager's v1");
  MigManagerConfig c;
  const json& configs = o.object("mig-configs");
  for (const auto& [name, entries] : configs.items()) {
    const std::string at = o.child_path("mig-configs") + "." + name;
    if (!entries.is_array()) throw InputError(file, at, "expected a list of entries");
    std::vector<MigConfigEntry>& out = c.configs[name];
    for (std::size_t i = 0; i < entries.size(); ++i) {
      out.push_back(entry_from(entries[i], file, JsonObject::index_path(at, i)));
    }
  }
  o.finish();
  return c;
}

MigManagerConfig parse_config_text(const std::string& text, const std::string& origin) {
  const YamlTree tree = parse_yaml_tree(text, origin);
  try {
    return config_from(tree.root, origin, "$");
  } catch (const InputError&) {
    rethrow_with_line(tree);
  }
}

}  // namespace

MigManagerConfig parse_mig_manager_config(const std::string& text, const std::string& origin) {
  const YamlTree tree = parse_yaml_tree(text, origin);
  if (!tree.root.is_object() || tree.root.value("kind", "") != "ConfigMap")
    return parse_config_text(text, origin);
  // A ConfigMap: the config is the text of one of its data keys (the GPU Operator's is config.yaml).
  const json data = tree.root.value("data", json::object());
  for (const auto& [key, value] : data.items()) {
    if (!value.is_string()) continue;
    const YamlTree inner = parse_yaml_tree(value.get<std::string>(), origin + " data." + key);
    if (inner.root.is_object() && inner.root.contains("mig-configs")) {
      return parse_config_text(value.get<std::string>(), origin + " data." + key);
    }
  }
  throw InputError(origin, "$.data",
                   "a ConfigMap without a MIG manager config (no data key holds mig-configs)");
}

std::optional<MigConfigEntry> mig_entry_for(const std::vector<MigConfigEntry>& entries, int nvml_index,
                                            const std::string& pci_device_id) {
  for (const MigConfigEntry& e : entries) {
    if (!e.all_devices && std::find(e.devices.begin(), e.devices.end(), nvml_index) == e.devices.end())
      continue;
    if (!e.device_filter.empty()) {
      // mig-parted's filter is the PCI device id followed by the vendor id (0x2330 + 10DE).
      const std::string id = to_lower(pci_device_id) + "10de";
      if (pci_device_id.empty() ||
          std::find(e.device_filter.begin(), e.device_filter.end(), id) == e.device_filter.end())
        continue;
    }
    return e;
  }
  return std::nullopt;
}

namespace {

// A GPU as the MIG manager counts it: its NVML index is its place in PCI bus order.
struct GpuView {
  const GpuInfo* gpu = nullptr;
  int nvml_index = 0;
  std::string pci_device_id;
};

std::vector<GpuView> in_pci_order(const MigLayoutInputs& in) {
  std::vector<GpuView> out;
  for (const GpuInfo& g : in.gpus) out.push_back({&g, 0, ""});
  std::sort(out.begin(), out.end(), [](const GpuView& a, const GpuView& b) {
    return normalize_pci_bus_id(a.gpu->pci_bus_id) < normalize_pci_bus_id(b.gpu->pci_bus_id);
  });
  for (std::size_t i = 0; i < out.size(); ++i) {
    out[i].nvml_index = static_cast<int>(i);
    for (const PciGpu& p : in.pci_gpus) {
      if (normalize_pci_bus_id(p.bus_id) == normalize_pci_bus_id(out[i].gpu->pci_bus_id))
        out[i].pci_device_id = p.device_id;
    }
  }
  return out;
}

std::string gpu_name(const GpuInfo& g) { return fmt::format("GPU {} ({})", g.index, g.uuid); }

bool mig_on(const GpuInfo& g) { return g.mig && g.mig->current; }

Finding fail_finding(const char* code, std::optional<int> gpu, std::string detail, std::string action) {
  return Finding{.code = code,
                 .severity = Severity::fail,
                 .gpu = gpu,
                 .detail = std::move(detail),
                 .action = std::move(action)};
}

Finding info_finding(const char* code, std::string detail) {
  return Finding{.code = code, .severity = Severity::info, .detail = std::move(detail)};
}

// One GPU against the entry of the config that selects it: its mode, then each profile's count.
void compare_gpu(const GpuView& v, const std::string& name, const std::vector<MigConfigEntry>& entries,
                 std::vector<Finding>& out) {
  const GpuInfo& g = *v.gpu;
  const std::optional<MigConfigEntry> e = mig_entry_for(entries, v.nvml_index, v.pci_device_id);
  const std::string fix = "re-apply the config (label nvidia.com/mig.config again), or reset the GPU";
  if (!e) {
    out.push_back(fail_finding("mig.config_no_entry", g.index,
                               fmt::format("{}: MIG config {} has no entry for it", gpu_name(g), name), fix));
    return;
  }
  if (e->mig_enabled != mig_on(g)) {
    out.push_back(fail_finding(
        "mig.mode_mismatch", g.index,
        fmt::format("{}: MIG {}, config {} asks for {}", gpu_name(g), mig_on(g) ? "enabled" : "disabled",
                    name, e->mig_enabled ? "enabled" : "disabled"),
        fix));
    return;
  }
  if (!e->mig_enabled) return;
  if (!g.mig->unread.empty()) {
    out.push_back(fail_finding("mig.instances_unread", g.index,
                               fmt::format("{}: MIG instances not read: {}", gpu_name(g), g.mig->unread),
                               ""));
    return;
  }
  std::map<std::string, int> have;
  for (const auto& [profile, count] : mig_device_counts(*g.mig)) have[profile] = count;
  std::set<std::string> profiles;
  for (const auto& [p, n] : have) profiles.insert(p);
  for (const auto& [p, n] : e->mig_devices) profiles.insert(p);
  for (const std::string& p : profiles) {
    const int want = e->mig_devices.count(p) ? e->mig_devices.at(p) : 0;
    const int got = have.count(p) ? have.at(p) : 0;
    if (want == got) continue;
    out.push_back(fail_finding("mig.instance_mismatch", g.index,
                               fmt::format("{}: {}: {} MIG device{}, config {} asks for {}", gpu_name(g), p,
                                           got, got == 1 ? "" : "s", name, want),
                               fix));
  }
}

// The config the label names, GPU by GPU: how many disagreements it found; nullopt when there was
// no config to compare the GPUs with (no label, no file, a name the file lacks).
std::optional<int> compare_config(const MigLayoutInputs& in, const std::vector<GpuView>& gpus,
                                  MigLayoutResult& r) {
  const auto label = in.labels.find(kMigConfigLabel);
  if (label == in.labels.end()) {
    r.findings.push_back(
        info_finding("mig.config_label_missing",
                     "no nvidia.com/mig.config label: the layout is not judged against the MIG "
                     "manager's config"));
    return std::nullopt;
  }
  if (!in.config) {
    r.findings.push_back(info_finding(
        "mig.config_unread", fmt::format("nvidia.com/mig.config={} but no MIG manager config was given "
                                         "(the check's config_file)",
                                         label->second)));
    return std::nullopt;
  }
  ++r.compared;
  const auto config = in.config->configs.find(label->second);
  if (config == in.config->configs.end()) {
    r.findings.push_back(fail_finding(
        "mig.config_unknown", std::nullopt,
        fmt::format("nvidia.com/mig.config={} names no config of {}", label->second, in.config_origin),
        "label the node with a config the MIG manager has"));
    return std::nullopt;  // nothing to compare the GPUs with
  }
  const std::size_t before = r.findings.size();
  for (const GpuView& v : gpus) compare_gpu(v, label->second, config->second, r.findings);
  return static_cast<int>(r.findings.size() - before);
}

// What the MIG manager says of its last change, against what the comparison found.
void judge_state(const MigLayoutInputs& in, std::optional<int> disagreements, MigLayoutResult& r) {
  const auto config = in.labels.find(kMigConfigLabel);
  const auto state = in.labels.find(kMigConfigStateLabel);
  if (config == in.labels.end()) return;
  if (state == in.labels.end()) {
    r.findings.push_back(info_finding(
        "mig.state_label_missing", "no nvidia.com/mig.config.state label: the MIG manager has not reported"));
    return;
  }
  ++r.compared;
  const std::string& s = state->second;
  if (s == "success") {
    if (disagreements.value_or(0) == 0) return;
    r.findings.push_back(fail_finding(
        "mig.state_success_wrong_layout", std::nullopt,
        fmt::format(
            "nvidia.com/mig.config.state=success, but the layout differs from {} in {} place{} (above)",
            config->second, *disagreements, *disagreements == 1 ? "" : "s"),
        "the MIG manager's success is not the layout: re-apply the config and qualify the node again"));
  } else if (s == "failed") {
    r.findings.push_back(fail_finding("mig.config_failed", std::nullopt,
                                      fmt::format("the MIG manager failed to apply {} "
                                                  "(nvidia.com/mig.config.state=failed)",
                                                  config->second),
                                      "read the nvidia-mig-manager pod's log on this node"));
  } else {
    r.findings.push_back(fail_finding(
        "mig.config_in_progress", std::nullopt,
        fmt::format("nvidia.com/mig.config.state={}: the change to {} is not finished", s, config->second),
        "qualify the node after the MIG manager reports success"));
  }
}

// The resources the device plugin should advertise for these GPUs under `strategy`
// (k8s-device-plugin, "MIG support": none advertises whole GPUs, single one resource of MIG
// devices, mixed one per profile), times the time-slicing replicas. A "" key is a layout the
// strategy cannot advertise (single over mixed profiles), with the reason as its value's text.
std::map<std::string, std::int64_t> expected_resources(const std::vector<GpuView>& gpus,
                                                       const std::string& strategy, std::int64_t replicas,
                                                       std::string& impossible) {
  std::map<std::string, std::int64_t> want;
  std::set<std::string> single_profiles;
  int whole = 0;
  for (const GpuView& v : gpus) {
    if (!mig_on(*v.gpu) || strategy == "none") {
      ++whole;
      continue;
    }
    for (const auto& [profile, count] : mig_device_counts(*v.gpu->mig)) {
      want[strategy == "single" ? "nvidia.com/gpu" : "nvidia.com/mig-" + profile] += count * replicas;
      single_profiles.insert(profile);
    }
  }
  if (whole > 0) want["nvidia.com/gpu"] += whole * replicas;
  if (strategy == "single" && (single_profiles.size() > 1 || (whole > 0 && !single_profiles.empty()))) {
    impossible = "the single strategy needs every GPU in MIG mode with one profile; this node has " +
                 std::to_string(whole) + " whole GPU(s) and " + std::to_string(single_profiles.size()) +
                 " profile(s): use the mixed strategy";
  }
  return want;
}

std::string per_gpu_counts(const std::vector<GpuView>& gpus, const std::string& profile) {
  std::string out;
  for (const GpuView& v : gpus) {
    int n = 0;
    if (mig_on(*v.gpu)) {
      for (const auto& [p, c] : mig_device_counts(*v.gpu->mig)) n += (p == profile) ? c : 0;
    }
    out += fmt::format("{}GPU {}: {}", out.empty() ? "" : ", ", v.gpu->index, n);
  }
  return out;
}

void compare_resources(const MigLayoutInputs& in, const std::vector<GpuView>& gpus, MigLayoutResult& r) {
  if (!in.capacity) {
    r.findings.push_back(info_finding("mig.resources_unread",
                                      "the Node's capacity was not given (node_file): the advertised MIG "
                                      "resources are not compared"));
    return;
  }
  ++r.compared;
  const auto st = in.labels.find(kMigStrategyLabel);
  const std::string strategy = st == in.labels.end() ? "none" : st->second;
  std::int64_t replicas = 1;
  if (auto it = in.labels.find("nvidia.com/gpu.replicas"); it != in.labels.end()) {
    std::from_chars(it->second.data(), it->second.data() + it->second.size(), replicas);
    replicas = std::max<std::int64_t>(replicas, 1);
  }
  std::string impossible;
  std::map<std::string, std::int64_t> want = expected_resources(gpus, strategy, replicas, impossible);
  if (!impossible.empty()) {
    r.findings.push_back(
        fail_finding("mig.strategy_mismatch", std::nullopt, "nvidia.com/mig.strategy=single: " + impossible,
                     "label the node nvidia.com/mig.strategy=mixed (the device plugin's config)"));
  }
  std::set<std::string> keys;
  for (const auto& [k, n] : want) keys.insert(k);
  for (const auto& [k, n] : *in.capacity) {
    if (k == "nvidia.com/gpu" || k.rfind("nvidia.com/mig-", 0) == 0) keys.insert(k);
  }
  for (const std::string& k : keys) {
    const std::int64_t w = want.count(k) ? want.at(k) : 0;
    const std::int64_t got = in.capacity->count(k) ? in.capacity->at(k) : 0;
    if (w == got) continue;
    const std::string profile = k.rfind("nvidia.com/mig-", 0) == 0 ? k.substr(15) : "";
    r.findings.push_back(fail_finding(
        "mig.resources_mismatch", std::nullopt,
        fmt::format("{}: the Node advertises {}, the GPUs give {} (strategy {}{}{})", k, got, w, strategy,
                    replicas > 1 ? fmt::format(", {} replicas", replicas) : "",
                    profile.empty() ? "" : "; " + per_gpu_counts(gpus, profile)),
        "restart the device plugin on this node after the MIG change (it advertises what it saw at start)"));
  }
}

}  // namespace

MigLayoutResult judge_mig_layout(const MigLayoutInputs& in) {
  MigLayoutResult r;
  const std::vector<GpuView> gpus = in_pci_order(in);
  const std::optional<int> disagreements = compare_config(in, gpus, r);
  judge_state(in, disagreements, r);
  compare_resources(in, gpus, r);
  return r;
}

std::map<std::string, std::int64_t> nvidia_capacity_from_node(const nlohmann::json& node,
                                                              const std::string& file) {
  if (!node.is_object() || node.value("kind", "Node") != "Node")
    throw InputError(file, "$.kind", "not a Node object");
  std::map<std::string, std::int64_t> out;
  const auto status = node.find("status");
  if (status == node.end() || !status->is_object() || !status->contains("capacity")) return out;
  const nlohmann::json& capacity = status->at("capacity");
  if (!capacity.is_object()) throw InputError(file, "$.status.capacity", "expected an object");
  for (const auto& [key, value] : capacity.items()) {
    if (key.rfind("nvidia.com/", 0) != 0) continue;
    std::int64_t n = -1;
    const std::string text = value.is_string() ? value.get<std::string>() : value.dump();
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
    if (ec != std::errc() || end != text.data() + text.size() || n < 0) {
      throw InputError(file, "$.status.capacity." + key, "\"" + text + "\" is not a count");
    }
    out[key] = n;
  }
  return out;
}

}  // namespace gpuqual
