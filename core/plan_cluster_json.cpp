#include "core/plan_cluster_json.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <set>
#include <nlohmann/json.hpp>

#include "core/hardware_class.hpp"
#include "core/input_error.hpp"
#include "core/json_fields.hpp"

namespace gpuqual {

namespace {

using nlohmann::json;

// The items of a list document, or the document itself when it is one object of `kind`.
std::vector<std::pair<const json*, std::string>> items_of(const json& doc, const std::string& file,
                                                           const std::string& kind) {
  if (!doc.is_object()) throw InputError(file, "$", fmt::format("expected a {} list object (kubectl get -o json)", kind));
  std::vector<std::pair<const json*, std::string>> out;
  auto it = doc.find("items");
  if (it == doc.end()) {
    const auto k = doc.find("kind");
    if (k == doc.end() || !k->is_string() || k->get<std::string>() != kind) {
      throw InputError(file, "$", fmt::format("neither a list with items nor a {} object", kind));
    }
    out.emplace_back(&doc, "$");
    return out;
  }
  if (it->is_null()) return out;  // an empty list can come back as "items": null
  if (!it->is_array()) throw InputError(file, "$.items", "expected an array");
  for (std::size_t i = 0; i < it->size(); ++i) {
    const json& item = (*it)[i];
    const std::string path = JsonObject::index_path("$.items", i);
    if (!item.is_object()) throw InputError(file, path, "expected an object");
    if (auto k = item.find("kind"); k != item.end() && (!k->is_string() || k->get<std::string>() != kind)) {
      throw InputError(file, path + ".kind", fmt::format("expected {}, found {}", kind, k->dump()));
    }
    out.emplace_back(&item, path);
  }
  return out;
}

Labels string_map(const json* v, const std::string& file, const std::string& where) {
  Labels out;
  if (v == nullptr || v->is_null()) return out;
  if (!v->is_object()) throw InputError(file, where, "expected a map of strings");
  for (auto it = v->begin(); it != v->end(); ++it) {
    if (!it->is_string()) throw InputError(file, where + "." + it.key(), "expected a string");
    out[it.key()] = it->get<std::string>();
  }
  return out;
}

const json* member(const json& o, const char* key) {
  auto it = o.find(key);
  return it == o.end() || it->is_null() ? nullptr : &*it;
}

std::string opt_string(const json& o, const char* key, const std::string& file, const std::string& path) {
  const json* v = member(o, key);
  if (v == nullptr) return "";
  if (!v->is_string()) throw InputError(file, path + "." + key, "expected a string");
  return v->get<std::string>();
}

const json& object_or_empty(const json& o, const char* key, const std::string& file, const std::string& path) {
  static const json empty = json::object();
  const json* v = member(o, key);
  if (v == nullptr) return empty;
  if (!v->is_object()) throw InputError(file, path + "." + key, "expected an object");
  return *v;
}

const json& array_or_empty(const json& o, const char* key, const std::string& file, const std::string& path) {
  static const json empty = json::array();
  const json* v = member(o, key);
  if (v == nullptr) return empty;
  if (!v->is_array()) throw InputError(file, path + "." + key, "expected an array");
  return *v;
}

std::vector<LabelRequirement> requirements(const json& arr, const std::string& file, const std::string& path) {
  std::vector<LabelRequirement> out;
  if (!arr.is_array()) throw InputError(file, path, "expected an array");
  for (std::size_t i = 0; i < arr.size(); ++i) {
    const std::string p = JsonObject::index_path(path, i);
    JsonObject o(arr[i], file, p);
    LabelRequirement r;
    r.key = o.nonempty_str("key");
    const std::string op = o.str("operator");
    if (op == "In") r.op = LabelRequirement::Op::in;
    else if (op == "NotIn") r.op = LabelRequirement::Op::not_in;
    else if (op == "Exists") r.op = LabelRequirement::Op::exists;
    else if (op == "DoesNotExist") r.op = LabelRequirement::Op::does_not_exist;
    else o.fail("operator", fmt::format("\"{}\" is not In, NotIn, Exists or DoesNotExist", op));
    if (o.has("values")) r.values = o.string_array("values");
    out.push_back(std::move(r));
  }
  return out;
}

ClusterNode node_from(const json& item, const std::string& file, const std::string& path) {
  ClusterNode n;
  const json& meta = object_or_empty(item, "metadata", file, path);
  n.name = JsonObject(meta, file, path + ".metadata").nonempty_str("name");
  n.labels = string_map(member(meta, "labels"), file, path + ".metadata.labels");
  n.hardware_class = hardware_class_from_gfd_labels(n.labels).slug;
  const json& spec = object_or_empty(item, "spec", file, path);
  if (const json* u = member(spec, "unschedulable")) {
    if (!u->is_boolean()) throw InputError(file, path + ".spec.unschedulable", "expected true or false");
    n.unschedulable = u->get<bool>();
  }
  const json& taints = array_or_empty(spec, "taints", file, path + ".spec");
  for (std::size_t i = 0; i < taints.size(); ++i) {
    const std::string p = JsonObject::index_path(path + ".spec.taints", i);
    JsonObject o(taints[i], file, p);
    n.taints.push_back({o.nonempty_str("key"), o.str_or("value", ""), o.nonempty_str("effect")});
  }
  const json& status = object_or_empty(item, "status", file, path);
  const json& alloc = object_or_empty(status, "allocatable", file, path + ".status");
  if (const json* g = member(alloc, kGpuResource)) {
    n.gpus = gpu_quantity(*g, file, path + ".status.allocatable[\"nvidia.com/gpu\"]");
  }
  const json& conditions = array_or_empty(status, "conditions", file, path + ".status");
  for (std::size_t i = 0; i < conditions.size(); ++i) {
    const std::string p = JsonObject::index_path(path + ".status.conditions", i);
    JsonObject o(conditions[i], file, p);
    if (o.str("type") == "Ready") n.ready = o.str("status") == "True";
  }
  return n;
}

// The pod's effective request (Kubernetes "Resource sharing within containers" of Init
// Containers): the larger of the app containers' sum (plus sidecars: init containers with
// restartPolicy Always run alongside) and the largest single init container. For an extended
// resource a request left out equals the limit (Kubernetes "Extended resources").
int container_gpus(const json& c, const std::string& file, const std::string& path) {
  const json& res = object_or_empty(c, "resources", file, path);
  const json& req = object_or_empty(res, "requests", file, path + ".resources");
  if (const json* g = member(req, kGpuResource)) return gpu_quantity(*g, file, path + ".resources.requests[\"nvidia.com/gpu\"]");
  const json& lim = object_or_empty(res, "limits", file, path + ".resources");
  if (const json* g = member(lim, kGpuResource)) return gpu_quantity(*g, file, path + ".resources.limits[\"nvidia.com/gpu\"]");
  return 0;
}

int pod_gpu_request(const json& spec, const std::string& file, const std::string& path) {
  int sum = 0;
  const json& containers = array_or_empty(spec, "containers", file, path);
  for (std::size_t i = 0; i < containers.size(); ++i) {
    sum += container_gpus(containers[i], file, JsonObject::index_path(path + ".containers", i));
  }
  int init_max = 0;
  const json& init = array_or_empty(spec, "initContainers", file, path);
  for (std::size_t i = 0; i < init.size(); ++i) {
    const std::string p = JsonObject::index_path(path + ".initContainers", i);
    const int g = container_gpus(init[i], file, p);
    if (opt_string(init[i], "restartPolicy", file, p) == "Always") sum += g;
    else init_max = std::max(init_max, g);
  }
  return std::max(sum, init_max);
}

ClusterPod pod_from(const json& item, const std::string& file, const std::string& path) {
  ClusterPod p;
  const json& meta = object_or_empty(item, "metadata", file, path);
  JsonObject m(meta, file, path + ".metadata");
  p.name = m.nonempty_str("name");
  p.ns = m.str_or("namespace", "default");
  p.labels = string_map(member(meta, "labels"), file, path + ".metadata.labels");
  p.annotations = string_map(member(meta, "annotations"), file, path + ".metadata.annotations");
  const json& owners = array_or_empty(meta, "ownerReferences", file, path + ".metadata");
  for (std::size_t i = 0; i < owners.size(); ++i) {
    JsonObject o(owners[i], file, JsonObject::index_path(path + ".metadata.ownerReferences", i));
    p.owners.push_back({o.nonempty_str("kind"), o.nonempty_str("name")});
  }
  const std::string sp = path + ".spec";
  const json& spec = object_or_empty(item, "spec", file, path);
  p.node = opt_string(spec, "nodeName", file, sp);
  p.gpus = pod_gpu_request(spec, file, sp);
  p.node_selector = string_map(member(spec, "nodeSelector"), file, sp + ".nodeSelector");
  const json& affinity = object_or_empty(spec, "affinity", file, sp);
  const json& node_aff = object_or_empty(affinity, "nodeAffinity", file, sp + ".affinity");
  const std::string rp = sp + ".affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution";
  const json& required = object_or_empty(node_aff, "requiredDuringSchedulingIgnoredDuringExecution", file,
                                         sp + ".affinity.nodeAffinity");
  const json& terms = array_or_empty(required, "nodeSelectorTerms", file, rp);
  for (std::size_t i = 0; i < terms.size(); ++i) {
    const std::string tp = JsonObject::index_path(rp + ".nodeSelectorTerms", i);
    if (!terms[i].is_object()) throw InputError(file, tp, "expected an object");
    const json& exprs = array_or_empty(terms[i], "matchExpressions", file, tp);
    p.required_node_terms.push_back(requirements(exprs, file, tp + ".matchExpressions"));
  }
  const json& tols = array_or_empty(spec, "tolerations", file, sp);
  for (std::size_t i = 0; i < tols.size(); ++i) {
    const std::string tp = JsonObject::index_path(sp + ".tolerations", i);
    if (!tols[i].is_object()) throw InputError(file, tp, "expected an object");
    Toleration t;
    t.key = opt_string(tols[i], "key", file, tp);
    t.op = opt_string(tols[i], "operator", file, tp);
    if (t.op.empty()) t.op = "Equal";
    t.value = opt_string(tols[i], "value", file, tp);
    t.effect = opt_string(tols[i], "effect", file, tp);
    p.tolerations.push_back(std::move(t));
  }
  p.phase = opt_string(object_or_empty(item, "status", file, path), "phase", file, path + ".status");
  return p;
}

ClusterPdb pdb_from(const json& item, const std::string& file, const std::string& path) {
  ClusterPdb d;
  JsonObject m(object_or_empty(item, "metadata", file, path), file, path + ".metadata");
  d.name = m.nonempty_str("name");
  d.ns = m.str_or("namespace", "default");
  const json& spec = object_or_empty(item, "spec", file, path);
  if (const json* sel = member(spec, "selector")) {
    const std::string sp = path + ".spec.selector";
    if (!sel->is_object()) throw InputError(file, sp, "expected an object");
    d.selector.match_labels = string_map(member(*sel, "matchLabels"), file, sp + ".matchLabels");
    if (const json* e = member(*sel, "matchExpressions")) d.selector.match_expressions = requirements(*e, file, sp + ".matchExpressions");
  } else {
    d.selector.selects_nothing = true;  // policy/v1: a null selector selects no pods
  }
  // status.disruptionsAllowed is what the eviction API checks; a PDB the controller has not yet
  // processed has no status: nothing may be evicted until it has.
  JsonObject st(object_or_empty(item, "status", file, path), file, path + ".status");
  d.disruptions_allowed = static_cast<int>(st.opt_integer("disruptionsAllowed", 0, 1'000'000'000).value_or(0));
  return d;
}

}  // namespace

int gpu_quantity(const json& v, const std::string& file, const std::string& where) {
  if (v.is_number_integer()) {
    const auto i = v.get<std::int64_t>();
    if (i < 0 || i > 1'000'000) throw InputError(file, where, fmt::format("{} GPUs is out of range", i));
    return static_cast<int>(i);
  }
  if (!v.is_string()) throw InputError(file, where, "expected a quantity string such as \"8\"");
  const std::string s = v.get<std::string>();
  int n = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), n);
  if (s.empty() || ec != std::errc() || ptr != s.data() + s.size() || n < 0 || n > 1'000'000) {
    throw InputError(file, where, fmt::format("\"{}\" is not a whole number of GPUs", s));
  }
  return n;
}

std::vector<ClusterNode> nodes_from_json(const json& doc, const std::string& file) {
  std::vector<ClusterNode> out;
  std::set<std::string> seen;  // the API never returns a name twice; a merged hand-made file might
  for (const auto& [item, path] : items_of(doc, file, "Node")) {
    out.push_back(node_from(*item, file, path));
    if (!seen.insert(out.back().name).second) throw InputError(file, path, fmt::format("node {} listed twice", out.back().name));
  }
  return out;
}

std::vector<ClusterPod> pods_from_json(const json& doc, const std::string& file) {
  std::vector<ClusterPod> out;
  std::set<std::string> seen;
  for (const auto& [item, path] : items_of(doc, file, "Pod")) {
    out.push_back(pod_from(*item, file, path));
    if (!seen.insert(out.back().key()).second) throw InputError(file, path, fmt::format("pod {} listed twice", out.back().key()));
  }
  return out;
}

std::vector<ClusterPdb> pdbs_from_json(const json& doc, const std::string& file) {
  std::vector<ClusterPdb> out;
  for (const auto& [item, path] : items_of(doc, file, "PodDisruptionBudget")) out.push_back(pdb_from(*item, file, path));
  return out;
}

}  // namespace gpuqual
