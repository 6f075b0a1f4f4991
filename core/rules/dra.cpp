#include "core/rules/dra.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "core/base/input_error.hpp"
#include "core/base/json_fields.hpp"

namespace gpuqual {

namespace {

// An attribute's value as text: DeviceAttribute holds exactly one of string, version, int, bool.
std::string attribute_text(JsonObject& attrs, const std::string& key) {
  const nlohmann::json* a = attrs.opt_object(key);
  if (!a) return "";
  JsonObject v(*a, attrs.file(), attrs.child_path(key));
  if (v.has("string")) return v.str("string");
  if (v.has("version")) return v.str("version");
  if (v.has("int")) return std::to_string(v.integer("int"));
  if (v.has("bool")) return v.boolean("bool") ? "true" : "false";
  return "";
}

DraDevice parse_device(const nlohmann::json& j, const std::string& file, const std::string& path) {
  JsonObject d(j, file, path);
  DraDevice out;
  out.name = d.nonempty_str("name");
  if (const nlohmann::json* a = d.opt_object("attributes")) {
    JsonObject attrs(*a, file, d.child_path("attributes"));
    out.type = attribute_text(attrs, "type");
    out.uuid = attribute_text(attrs, "uuid");
    out.parent_uuid = attribute_text(attrs, "parentUUID");
    out.product = attribute_text(attrs, "productName");
    out.driver_version = attribute_text(attrs, "driverVersion");
  }
  return out;
}

DraSlice parse_slice(JsonObject& o) {
  DraSlice s;
  s.name = JsonObject(o.object("metadata"), o.file(), o.child_path("metadata")).str_or("name", "");
  JsonObject spec(o.object("spec"), o.file(), o.child_path("spec"));
  s.driver = spec.nonempty_str("driver");
  s.node = spec.str_or("nodeName", "");
  JsonObject pool(spec.object("pool"), o.file(), spec.child_path("pool"));
  s.pool = pool.str("name");
  s.generation = pool.integer("generation", 0);
  if (const nlohmann::json* devices = spec.opt_array("devices")) {
    for (std::size_t i = 0; i < devices->size(); ++i) {
      s.devices.push_back(
          parse_device((*devices)[i], o.file(), JsonObject::index_path(spec.child_path("devices"), i)));
    }
  }
  return s;
}

DraComputeDomain parse_compute_domain(JsonObject& o) {
  DraComputeDomain cd;
  JsonObject meta(o.object("metadata"), o.file(), o.child_path("metadata"));
  cd.name = fmt::format("{}/{}", meta.str_or("namespace", ""), meta.str_or("name", ""));
  const nlohmann::json* st = o.opt_object("status");
  if (!st) return cd;
  JsonObject status(*st, o.file(), o.child_path("status"));
  cd.status = status.str_or("status", "");
  if (const nlohmann::json* nodes = status.opt_array("nodes")) {
    for (std::size_t i = 0; i < nodes->size(); ++i) {
      JsonObject n((*nodes)[i], o.file(), JsonObject::index_path(status.child_path("nodes"), i));
      cd.nodes.emplace_back(n.str("name"), n.str_or("status", "NotReady"));
    }
  }
  return cd;
}

void parse_item(const nlohmann::json& j, const std::string& file, const std::string& path, DraObjects& out) {
  JsonObject o(j, file, path);
  const std::string kind = o.str_or("kind", "");
  if (kind == "ResourceSlice") {
    out.slices.push_back(parse_slice(o));
  } else if (kind == "DeviceClass") {
    out.device_classes.push_back(
        JsonObject(o.object("metadata"), file, o.child_path("metadata")).nonempty_str("name"));
  } else if (kind == "ComputeDomain") {
    out.compute_domains.push_back(parse_compute_domain(o));
  }
}

std::vector<long long> version_parts(const std::string& v) {
  std::vector<long long> parts;
  const char* p = v.data();
  const char* end = v.data() + v.size();
  while (p < end) {
    long long n = 0;
    auto [next, ec] = std::from_chars(p, end, n);
    if (ec != std::errc()) return {};
    parts.push_back(n);
    if (next == end) break;
    if (*next != '.') return {};
    p = next + 1;
  }
  while (!parts.empty() && parts.back() == 0) parts.pop_back();
  return parts;
}

Finding finding(std::string code, Severity severity, std::string detail, std::string action,
                std::optional<int> gpu = std::nullopt) {
  Finding f;
  f.code = std::move(code);
  f.severity = severity;
  f.gpu = gpu;
  f.detail = std::move(detail);
  f.action = std::move(action);
  return f;
}

}  // namespace

DraObjects parse_dra_objects(const nlohmann::json& j, const std::string& origin) {
  DraObjects out;
  if (!j.is_object()) throw InputError(origin, "$", "not a Kubernetes object or List");
  if (j.contains("items")) {
    JsonObject list(j, origin, "$");
    const nlohmann::json& items = list.array("items");
    for (std::size_t i = 0; i < items.size(); ++i)
      parse_item(items[i], origin, JsonObject::index_path("$.items", i), out);
  } else {
    parse_item(j, origin, "$", out);
  }
  return out;
}

bool api_groups_serve_dra(const nlohmann::json& j, const std::string& origin) {
  JsonObject list(j, origin, "$");
  if (list.str_or("kind", "") != "APIGroupList")
    list.fail("kind", "not an APIGroupList (kubectl get --raw /apis)");
  const nlohmann::json& groups = list.array("groups");
  return std::any_of(groups.begin(), groups.end(), [](const nlohmann::json& g) {
    return g.is_object() && g.value("name", "") == kDraApiGroup;
  });
}

std::vector<const DraSlice*> node_slices(const DraObjects& objects, const std::string& node,
                                         const std::string& driver) {
  std::map<std::string, long long> newest;  // pool -> highest generation
  for (const DraSlice& s : objects.slices) {
    if (s.driver != driver || s.node != node) continue;
    auto [it, fresh] = newest.emplace(s.pool, s.generation);
    if (!fresh) it->second = std::max(it->second, s.generation);
  }
  std::vector<const DraSlice*> out;
  for (const DraSlice& s : objects.slices) {
    if (s.driver == driver && s.node == node && s.generation == newest[s.pool]) out.push_back(&s);
  }
  return out;
}

bool dra_driver_installed(const DraObjects& objects) {
  const auto& dc = objects.device_classes;
  return std::find(dc.begin(), dc.end(), kDraGpuDeviceClass) != dc.end() ||
         std::any_of(objects.slices.begin(), objects.slices.end(),
                     [](const DraSlice& s) { return s.driver == kDraGpuDriver; });
}

std::string gpu_allocation_path(bool node_has_dra_devices, std::optional<long long> gpu_capacity) {
  const bool plugin = gpu_capacity && *gpu_capacity > 0;
  if (node_has_dra_devices && plugin) return "both";
  if (node_has_dra_devices) return "dra";
  return plugin ? "device_plugin" : "none";
}

bool driver_versions_equal(const std::string& a, const std::string& b) {
  const auto pa = version_parts(a);
  return !pa.empty() && pa == version_parts(b);
}

namespace {

struct Published {
  std::map<std::string, const DraDevice*> by_uuid;
  std::size_t count = 0;
};

Published published_devices(const std::vector<const DraSlice*>& slices) {
  Published p;
  for (const DraSlice* s : slices) {
    for (const DraDevice& d : s->devices) {
      ++p.count;
      if (!d.uuid.empty()) p.by_uuid.emplace(d.uuid, &d);
    }
  }
  return p;
}

// One device of the record against its published twin: present, of the type, product and driver.
void judge_device(const Published& p, const std::string& uuid, const std::string& type, const GpuInfo& g,
                  const std::string& driver_version, std::vector<Finding>& out) {
  auto it = p.by_uuid.find(uuid);
  if (it == p.by_uuid.end() || it->second->type != type) {
    out.push_back(finding(
        type == "mig" ? "dra.mig_unpublished" : "dra.gpu_unpublished", Severity::fail,
        fmt::format("{} {} of GPU {} is not published as a {} device of {} for this node", type, uuid,
                    g.index, type, kDraGpuDriver),
        "restart the DRA driver's kubelet plugin on the node; pods cannot claim this device", g.index));
    return;
  }
  const DraDevice& d = *it->second;
  if (!g.name.empty() && d.product != g.name) {
    out.push_back(finding(
        "dra.product_mismatch", Severity::fail,
        fmt::format("device {} publishes productName \"{}\", the GPU is \"{}\"", d.name, d.product, g.name),
        "", g.index));
  }
  if (!driver_version.empty() && !driver_versions_equal(d.driver_version, driver_version)) {
    out.push_back(
        finding("dra.driver_version_mismatch", Severity::fail,
                fmt::format("device {} publishes driverVersion \"{}\", the loaded driver is {}", d.name,
                            d.driver_version, driver_version),
                "the slice is stale (from before a driver upgrade): restart the DRA driver's kubelet plugin",
                g.index));
  }
}

std::set<std::string> judge_gpus(const Published& p, const std::vector<GpuInfo>& gpus,
                                 const std::string& driver_version, std::vector<Finding>& out) {
  std::set<std::string> known;
  for (const GpuInfo& g : gpus) {
    known.insert(g.uuid);
    if (!(g.mig && g.mig->current)) {
      judge_device(p, g.uuid, "gpu", g, driver_version, out);
      continue;
    }
    if (!g.mig->unread.empty()) {
      // The record could not list this GPU's MIG devices: nothing to hold the slice to.
      for (const auto& [uuid, d] : p.by_uuid) {
        if (d->parent_uuid == g.uuid) known.insert(uuid);
      }
      continue;
    }
    for (const MigGpuInstance& gi : g.mig->gpu_instances) {
      for (const MigComputeInstance& ci : gi.compute_instances) {
        known.insert(ci.uuid);
        judge_device(p, ci.uuid, "mig", g, driver_version, out);
      }
    }
  }
  return known;
}

void judge_unknown(const Published& p, const std::set<std::string>& known, std::vector<Finding>& out) {
  for (const auto& [uuid, d] : p.by_uuid) {
    if ((d->type == "gpu" || d->type == "mig") && !known.contains(uuid)) {
      out.push_back(finding("dra.device_unknown", Severity::fail,
                            fmt::format("device {} ({} {}) is published for this node, which has no such {}",
                                        d->name, d->type, uuid, d->type == "mig" ? "MIG device" : "GPU"),
                            "the slice is stale (MIG layout or GPU changed): restart the kubelet plugin"));
    }
  }
}

void judge_cluster_objects(const DraObjects& objects, const std::string& node, bool mig_expected,
                           std::vector<Finding>& out) {
  const auto& dc = objects.device_classes;
  for (const char* cls : {kDraGpuDeviceClass, kDraMigDeviceClass}) {
    if (cls == std::string(kDraMigDeviceClass) && !mig_expected) continue;
    if (std::find(dc.begin(), dc.end(), cls) == dc.end()) {
      out.push_back(finding("dra.device_class_missing", Severity::fail,
                            fmt::format("the DeviceClass {} does not exist: no claim can name it", cls),
                            "reinstall the DRA driver's Helm chart"));
    }
  }
  for (const DraComputeDomain& cd : objects.compute_domains) {
    for (const auto& [name, status] : cd.nodes) {
      if (name != node || status == "Ready") continue;
      out.push_back(finding("dra.compute_domain_not_ready", Severity::fail,
                            fmt::format("ComputeDomain {} lists this node as {}", cd.name, status),
                            "check the compute domain daemon (IMEX) pod on the node"));
    }
  }
}

}  // namespace

std::vector<Finding> judge_dra(const DraObjects& objects, const std::string& node,
                               const std::vector<GpuInfo>& gpus, const std::string& driver_version) {
  std::vector<Finding> out;
  const bool mig_expected =
      std::any_of(gpus.begin(), gpus.end(), [](const GpuInfo& g) { return g.mig && g.mig->current; });
  judge_cluster_objects(objects, node, mig_expected, out);
  const auto slices = node_slices(objects, node);
  if (slices.empty()) {
    out.insert(out.begin(),
               finding("dra.slice_missing", Severity::fail,
                       fmt::format("no ResourceSlice of {} for node {}: the kubelet plugin has "
                                   "not published (or a restart deleted it and it never came back)",
                                   kDraGpuDriver, node),
                       "check the DRA driver's kubelet plugin pod on the node"));
    return out;
  }
  const Published p = published_devices(slices);
  if (p.count == 0 && !gpus.empty()) {
    out.insert(out.begin(), finding("dra.slice_empty", Severity::fail,
                                    fmt::format("the ResourceSlices of {} for node {} list no device",
                                                kDraGpuDriver, node),
                                    "restart the DRA driver's kubelet plugin on the node"));
    return out;
  }
  const auto known = judge_gpus(p, gpus, driver_version, out);
  judge_unknown(p, known, out);
  return out;
}

}  // namespace gpuqual
