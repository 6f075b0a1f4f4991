#include "core/fleet/plan_cluster_json.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>

#include "core/base/simdjson_fields.hpp"
#include "core/record/hardware_class.hpp"

namespace gpuqual {

namespace {

using simdjson::dom::element;
using simdjson::dom::element_type;
using simdjson_fields::Obj;
using simdjson_fields::type_name;
using simdjson_fields::Where;

// A kubectl document is read field by field: every other field of the API is left alone. The
// JSON path of a field is spelled out only for an error (Where): a path string for each field
// of 100,000 pods cost as much as reading them.

// The value of `key` in object `o`, or null when it is absent or JSON null. A key given twice
// resolves to its last occurrence, as nlohmann's parser (and so every other reader) does.
const element* member(const element& o, std::string_view key, element& slot) {
  bool found = false;
  for (auto field : simdjson::dom::object(o)) {
    if (field.key == key) {
      slot = field.value;
      found = true;
    }
  }
  return found && slot.type() != element_type::NULL_VALUE ? &slot : nullptr;
}

bool is_a(const element& e, element_type t) { return e.type() == t; }

// The object (or array) at `key`, or nullopt when absent/null; the wrong type is an InputError.
std::optional<element> opt_of(const element& o, const char* key, element_type want, const char* what,
                              const std::string& file, const Where& where) {
  element slot;
  const element* v = member(o, key, slot);
  if (v == nullptr) return std::nullopt;
  if (!is_a(*v, want)) throw InputError(file, Where{&where, key}.str(), what);
  return *v;
}

std::optional<element> opt_object(const element& o, const char* key, const std::string& file,
                                  const Where& where) {
  return opt_of(o, key, element_type::OBJECT, "expected an object", file, where);
}

std::optional<element> opt_array(const element& o, const char* key, const std::string& file,
                                 const Where& where) {
  return opt_of(o, key, element_type::ARRAY, "expected an array", file, where);
}

std::string opt_string(const element& o, const char* key, const std::string& file, const Where& where) {
  element slot;
  const element* v = member(o, key, slot);
  if (v == nullptr) return "";
  if (!is_a(*v, element_type::STRING)) throw InputError(file, Where{&where, key}.str(), "expected a string");
  return std::string(std::string_view(*v));
}

// A map of strings (labels, annotations, nodeSelector). The first non-string value in key
// order is the one reported, as a reader iterating nlohmann's sorted object would.
Labels string_map(const element& o, const char* key, const std::string& file, const Where& where) {
  Labels out;
  element slot;
  const element* v = member(o, key, slot);
  if (v == nullptr) return out;
  const Where at{&where, key};
  if (!is_a(*v, element_type::OBJECT)) throw InputError(file, at.str(), "expected a map of strings");
  std::string_view first_bad;
  bool bad = false;
  for (auto field : simdjson::dom::object(*v)) {
    if (!is_a(field.value, element_type::STRING)) {
      if (!bad || field.key < first_bad) first_bad = field.key;
      bad = true;
      continue;
    }
    out.insert_or_assign(std::string(field.key), std::string(std::string_view(field.value)));
  }
  if (bad) throw InputError(file, at.str() + "." + std::string(first_bad), "expected a string");
  return out;
}

// A quantity of whole GPUs: "8" (the API's canonical form for an integer quantity), or a JSON
// integer in a hand-written file. Anything else (fractions, "500m", "1Ki") is an InputError:
// an extended resource is a whole number (Kubernetes "Extended resources").
int gpu_quantity(const element& v, const std::string& file, const Where& where) {
  // simdjson gives UINT64 only to integers above INT64_MAX: always out of range here.
  if (v.type() == element_type::UINT64)
    throw InputError(file, where.str(), fmt::format("{} GPUs is out of range", std::uint64_t(v)));
  if (v.type() == element_type::INT64) {
    const std::int64_t i(v);
    if (i < 0 || i > 1'000'000)
      throw InputError(file, where.str(), fmt::format("{} GPUs is out of range", i));
    return static_cast<int>(i);
  }
  if (!is_a(v, element_type::STRING))
    throw InputError(file, where.str(), "expected a quantity string such as \"8\"");
  const std::string_view s(v);
  int n = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), n);
  if (s.empty() || ec != std::errc() || ptr != s.data() + s.size() || n < 0 || n > 1'000'000) {
    throw InputError(file, where.str(), fmt::format("\"{}\" is not a whole number of GPUs", s));
  }
  return n;
}

// The GPU quantity at resources.<list>["nvidia.com/gpu"], if the list names one.
std::optional<int> gpus_in(const element& resources, const char* list, const char* path_key,
                           const std::string& file, const Where& res_where) {
  const auto l = opt_object(resources, list, file, res_where);
  if (!l) return std::nullopt;
  element slot;
  const element* g = member(*l, kGpuResource, slot);
  if (g == nullptr) return std::nullopt;
  return gpu_quantity(*g, file, Where{&res_where, path_key});
}

// Which list a requirement is read from: its operators and, for matchFields, its key differ.
enum class RequirementList {
  label_selector,  // meta/v1 LabelSelector.matchExpressions (a PDB): In, NotIn, Exists, DoesNotExist
  node_labels,     // NodeSelectorTerm.matchExpressions: those and Gt, Lt
  node_fields,     // NodeSelectorTerm.matchFields: metadata.name, In or NotIn
};

using ReqOp = NodeSelectorRequirement::Op;

// The operator by its API name, if `list` has it.
std::optional<ReqOp> requirement_op(const std::string& op, RequirementList list) {
  static const std::pair<const char*, ReqOp> kOps[] = {
      {"In", ReqOp::in},         {"NotIn", ReqOp::not_in},
      {"Exists", ReqOp::exists}, {"DoesNotExist", ReqOp::does_not_exist},
      {"Gt", ReqOp::gt},         {"Lt", ReqOp::lt}};
  const std::size_t allowed = list == RequirementList::node_fields   ? 2
                              : list == RequirementList::node_labels ? 6
                                                                     : 4;
  for (std::size_t i = 0; i < allowed; ++i) {
    if (op == kOps[i].first) return kOps[i].second;
  }
  return std::nullopt;
}

const char* operators_allowed(RequirementList list) {
  switch (list) {
    case RequirementList::label_selector:
      return "In, NotIn, Exists or DoesNotExist";
    case RequirementList::node_labels:
      return "In, NotIn, Exists, DoesNotExist, Gt or Lt";
    case RequirementList::node_fields:
      return "In or NotIn (matchFields)";
  }
  return "";
}

// What the API server refuses (core/v1 validation) and the evaluator could not give a meaning:
// Gt/Lt with other than one value, matchFields on another field or with other than one value.
// A Gt/Lt value that is not an integer is accepted by the API: it matches no node (node_selector.hpp).
void check_requirement(Obj& o, const NodeSelectorRequirement& r, RequirementList list) {
  if ((r.op == ReqOp::gt || r.op == ReqOp::lt) && r.values.size() != 1)
    o.fail("values", "Gt and Lt take exactly one value, an integer");
  if (list != RequirementList::node_fields) return;
  if (r.key != kNodeNameField)
    o.fail("key",
           fmt::format("\"{}\" is not a node field matchFields can select: only {}", r.key, kNodeNameField));
  if (r.values.size() != 1) o.fail("values", "matchFields In and NotIn take exactly one value, a node name");
}

std::vector<NodeSelectorRequirement> requirements(const element& arr, const std::string& file,
                                                  const Where& where, RequirementList list) {
  std::vector<NodeSelectorRequirement> out;
  if (!is_a(arr, element_type::ARRAY)) throw InputError(file, where.str(), "expected an array");
  std::size_t i = 0;
  for (element e : simdjson::dom::array(arr)) {
    const Where at{where.parent, where.key, i++};
    Obj o(e, file, at);
    NodeSelectorRequirement r;
    r.key = o.nonempty_str("key");
    const std::string op = o.str("operator");
    const auto parsed = requirement_op(op, list);
    if (!parsed) o.fail("operator", fmt::format("\"{}\" is not {}", op, operators_allowed(list)));
    r.op = *parsed;
    if (o.has("values")) r.values = o.string_array("values");
    check_requirement(o, r, list);
    out.push_back(std::move(r));
  }
  return out;
}

// The object's metadata, which every API object has: without it, its name is what is missing.
element metadata_of(const element& item, const std::string& file, const Where& where, const Where& meta_at) {
  const auto meta = opt_object(item, "metadata", file, where);
  if (!meta) throw InputError(file, Where{&meta_at, "name"}.str(), "required field is missing");
  return *meta;
}

// metadata.name and metadata.namespace ("default" when left out) of a namespaced object.
template <class Object>
void read_name_and_namespace(const element& meta, const std::string& file, const Where& meta_at,
                             Object& out) {
  Obj m(meta, file, meta_at);
  out.name = m.nonempty_str("name");
  out.ns = m.str_or("namespace", "default");
}

ClusterNode node_from(const element& item, const std::string& file, const Where& where) {
  ClusterNode n;
  const Where meta_at{&where, "metadata"};
  const element meta = metadata_of(item, file, where, meta_at);
  n.name = Obj(meta, file, meta_at).nonempty_str("name");
  n.labels = string_map(meta, "labels", file, meta_at);
  n.hardware_class = hardware_class_from_gfd_labels(n.labels).slug;
  const Where spec_at{&where, "spec"};
  if (const auto spec = opt_object(item, "spec", file, where)) {
    element slot;
    if (const element* u = member(*spec, "unschedulable", slot)) {
      if (!is_a(*u, element_type::BOOL))
        throw InputError(file, Where{&spec_at, "unschedulable"}.str(), "expected true or false");
      n.unschedulable = bool(*u);
    }
    if (const auto taints = opt_array(*spec, "taints", file, spec_at)) {
      std::size_t i = 0;
      for (element t : simdjson::dom::array(*taints)) {
        Obj o(t, file, Where{&spec_at, "taints", i++});
        n.taints.push_back({o.nonempty_str("key"), o.str_or("value", ""), o.nonempty_str("effect")});
      }
    }
  }
  const Where status_at{&where, "status"};
  // Only a Ready condition saying True makes the node ready: False, Unknown, and no Ready
  // condition at all (Kubernetes' Unknown) leave it out of the schedulable capacity.
  n.ready = false;
  if (const auto status = opt_object(item, "status", file, where)) {
    if (auto g = gpus_in(*status, "allocatable", "allocatable[\"nvidia.com/gpu\"]", file, status_at))
      n.gpus = *g;
    if (const auto conditions = opt_array(*status, "conditions", file, status_at)) {
      std::size_t i = 0;
      for (element c : simdjson::dom::array(*conditions)) {
        Obj o(c, file, Where{&status_at, "conditions", i++});
        if (o.str("type") == "Ready") n.ready = o.str("status") == "True";
      }
    }
  }
  return n;
}

// The pod's effective request (Kubernetes "Resource sharing within containers" of Init
// Containers): the larger of the app containers' sum (plus sidecars: init containers with
// restartPolicy Always run alongside) and the largest single init container. For an extended
// resource a request left out equals the limit (Kubernetes "Extended resources").
int container_gpus(const element& c, const std::string& file, const Where& where) {
  if (!is_a(c, element_type::OBJECT)) throw InputError(file, where.str(), "expected an object");
  const auto res = opt_object(c, "resources", file, where);
  if (!res) return 0;
  const Where res_at{&where, "resources"};
  if (auto g = gpus_in(*res, "requests", "requests[\"nvidia.com/gpu\"]", file, res_at)) return *g;
  if (auto g = gpus_in(*res, "limits", "limits[\"nvidia.com/gpu\"]", file, res_at)) return *g;
  return 0;
}

int pod_gpu_request(const element& spec, const std::string& file, const Where& spec_at) {
  int sum = 0;
  if (const auto containers = opt_array(spec, "containers", file, spec_at)) {
    std::size_t i = 0;
    for (element c : simdjson::dom::array(*containers))
      sum += container_gpus(c, file, Where{&spec_at, "containers", i++});
  }
  int init_max = 0;
  if (const auto init = opt_array(spec, "initContainers", file, spec_at)) {
    std::size_t i = 0;
    for (element c : simdjson::dom::array(*init)) {
      const Where at{&spec_at, "initContainers", i++};
      const int g = container_gpus(c, file, at);
      if (opt_string(c, "restartPolicy", file, at) == "Always")
        sum += g;
      else
        init_max = std::max(init_max, g);
    }
  }
  return std::max(sum, init_max);
}

// One nodeSelectorTerm: its matchExpressions (node labels) and matchFields (metadata.name).
NodeSelectorTerm selector_term(const element& term, const std::string& file, const Where& tp) {
  if (!is_a(term, element_type::OBJECT)) throw InputError(file, tp.str(), "expected an object");
  NodeSelectorTerm t;
  if (const auto exprs = opt_array(term, "matchExpressions", file, tp))
    t.match_expressions =
        requirements(*exprs, file, Where{&tp, "matchExpressions"}, RequirementList::node_labels);
  if (const auto fields = opt_array(term, "matchFields", file, tp))
    t.match_fields = requirements(*fields, file, Where{&tp, "matchFields"}, RequirementList::node_fields);
  return t;
}

// spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution. Once it is there,
// it constrains: with no nodeSelectorTerms (the API requires one) it matches no node, as the
// scheduler's evaluation of an empty NodeSelector has it.
void read_affinity(const element& spec, ClusterPod& p, const std::string& file, const Where& spec_at) {
  const auto affinity = opt_object(spec, "affinity", file, spec_at);
  if (!affinity) return;
  const Where aff_at{&spec_at, "affinity"};
  const auto node_aff = opt_object(*affinity, "nodeAffinity", file, aff_at);
  if (!node_aff) return;
  const Where na_at{&aff_at, "nodeAffinity"};
  const auto required = opt_object(*node_aff, "requiredDuringSchedulingIgnoredDuringExecution", file, na_at);
  if (!required) return;
  const Where req_at{&na_at, "requiredDuringSchedulingIgnoredDuringExecution"};
  p.required_affinity.emplace();
  const auto terms = opt_array(*required, "nodeSelectorTerms", file, req_at);
  if (!terms) return;
  std::size_t i = 0;
  for (element term : simdjson::dom::array(*terms))
    p.required_affinity->terms.push_back(selector_term(term, file, Where{&req_at, "nodeSelectorTerms", i++}));
}

ClusterPod pod_from(const element& item, const std::string& file, const Where& where) {
  ClusterPod p;
  const Where meta_at{&where, "metadata"};
  const element meta = metadata_of(item, file, where, meta_at);
  read_name_and_namespace(meta, file, meta_at, p);
  p.labels = string_map(meta, "labels", file, meta_at);
  p.annotations = string_map(meta, "annotations", file, meta_at);
  if (const auto owners = opt_array(meta, "ownerReferences", file, meta_at)) {
    std::size_t i = 0;
    for (element e : simdjson::dom::array(*owners)) {
      Obj o(e, file, Where{&meta_at, "ownerReferences", i++});
      OwnerRef ref{o.nonempty_str("kind"), o.nonempty_str("name")};
      ref.controller = o.opt_boolean("controller").value_or(false);
      p.owners.push_back(std::move(ref));
    }
  }
  const Where spec_at{&where, "spec"};
  if (const auto spec = opt_object(item, "spec", file, where)) {
    p.node = opt_string(*spec, "nodeName", file, spec_at);
    p.gpus = pod_gpu_request(*spec, file, spec_at);
    p.node_selector = string_map(*spec, "nodeSelector", file, spec_at);
    read_affinity(*spec, p, file, spec_at);
    if (const auto tols = opt_array(*spec, "tolerations", file, spec_at)) {
      std::size_t i = 0;
      for (element e : simdjson::dom::array(*tols)) {
        const Where tp{&spec_at, "tolerations", i++};
        if (!is_a(e, element_type::OBJECT)) throw InputError(file, tp.str(), "expected an object");
        Toleration t;
        t.key = opt_string(e, "key", file, tp);
        t.op = opt_string(e, "operator", file, tp);
        if (t.op.empty()) t.op = "Equal";
        t.value = opt_string(e, "value", file, tp);
        t.effect = opt_string(e, "effect", file, tp);
        p.tolerations.push_back(std::move(t));
      }
    }
  }
  if (const auto status = opt_object(item, "status", file, where))
    p.phase = opt_string(*status, "phase", file, Where{&where, "status"});
  return p;
}

ClusterPdb pdb_from(const element& item, const std::string& file, const Where& where) {
  ClusterPdb d;
  const Where meta_at{&where, "metadata"};
  read_name_and_namespace(metadata_of(item, file, where, meta_at), file, meta_at, d);
  const Where spec_at{&where, "spec"};
  const auto spec = opt_object(item, "spec", file, where);
  const auto sel = spec ? opt_object(*spec, "selector", file, spec_at) : std::nullopt;
  if (sel) {
    const Where sp{&spec_at, "selector"};
    d.selector.match_labels = string_map(*sel, "matchLabels", file, sp);
    element slot;
    if (const element* e = member(*sel, "matchExpressions", slot)) {
      d.selector.match_expressions =
          requirements(*e, file, Where{&sp, "matchExpressions"}, RequirementList::label_selector);
    }
  } else {
    d.selector.selects_nothing = true;  // policy/v1: a null selector selects no pods
  }
  // status.disruptionsAllowed is what the eviction API checks; a PDB the controller has not yet
  // processed has no status: nothing may be evicted until it has.
  if (const auto status = opt_object(item, "status", file, where)) {
    Obj st(*status, file, Where{&where, "status"});
    d.disruptions_allowed =
        static_cast<int>(st.opt_integer("disruptionsAllowed", 0, 1'000'000'000).value_or(0));
  }
  return d;
}

// Calls `on_item(item, where)` for each item of a list document, or for the document itself when
// it is one object of `kind`.
template <class OnItem>
void for_each_item(const element& doc, const std::string& file, const char* kind, OnItem on_item) {
  const Where root;
  if (!is_a(doc, element_type::OBJECT)) {
    throw InputError(file, "$", fmt::format("expected a {} list object (kubectl get -o json)", kind));
  }
  element slot;
  const element* items = nullptr;
  bool has_items = false;
  for (auto field : simdjson::dom::object(doc)) {
    if (field.key == "items") {
      slot = field.value;
      has_items = true;
    }
  }
  if (has_items) items = &slot;
  if (!has_items) {
    element k;
    const element* kv = member(doc, "kind", k);
    if (kv == nullptr || !is_a(*kv, element_type::STRING) || std::string_view(*kv) != kind) {
      throw InputError(file, "$", fmt::format("neither a list with items nor a {} object", kind));
    }
    on_item(doc, root);
    return;
  }
  if (is_a(*items, element_type::NULL_VALUE)) return;  // an empty list can come back as "items": null
  if (!is_a(*items, element_type::ARRAY)) throw InputError(file, "$.items", "expected an array");
  std::size_t i = 0;
  for (element item : simdjson::dom::array(*items)) {
    const Where at{&root, "items", i++};
    if (!is_a(item, element_type::OBJECT)) throw InputError(file, at.str(), "expected an object");
    element k;
    if (const element* kv = member(item, "kind", k);
        kv != nullptr && (!is_a(*kv, element_type::STRING) || std::string_view(*kv) != kind)) {
      throw InputError(file, at.str() + ".kind",
                       fmt::format("expected {}, found {}", kind, simdjson::minify(*kv)));
    }
    on_item(item, at);
  }
}

// One parser per document kind read; the text is padded and parsed in place.
element parse_document(simdjson_fields::Parser& parser, std::string& text, const std::string& origin) {
  simdjson_fields::Parser::pad(text);
  return parser.parse(text, origin);
}

}  // namespace

std::vector<ClusterNode> read_nodes(std::string text, const std::string& origin, const JsonLimits& limits) {
  simdjson_fields::Parser parser(limits);
  const element doc = parse_document(parser, text, origin);
  std::vector<ClusterNode> out;
  std::set<std::string> seen;  // the API never returns a name twice; a merged hand-made file might
  for_each_item(doc, origin, "Node", [&](const element& item, const Where& at) {
    out.push_back(node_from(item, origin, at));
    if (!seen.insert(out.back().name).second)
      throw InputError(origin, at.str(), fmt::format("node {} listed twice", out.back().name));
  });
  return out;
}

std::vector<ClusterPod> read_pods(std::string text, const std::string& origin, const JsonLimits& limits) {
  simdjson_fields::Parser parser(limits);
  const element doc = parse_document(parser, text, origin);
  std::vector<ClusterPod> out;
  std::set<std::string> seen;
  for_each_item(doc, origin, "Pod", [&](const element& item, const Where& at) {
    out.push_back(pod_from(item, origin, at));
    if (!seen.insert(out.back().key()).second)
      throw InputError(origin, at.str(), fmt::format("pod {} listed twice", out.back().key()));
  });
  return out;
}

std::vector<ClusterPdb> read_pdbs(std::string text, const std::string& origin, const JsonLimits& limits) {
  simdjson_fields::Parser parser(limits);
  const element doc = parse_document(parser, text, origin);
  std::vector<ClusterPdb> out;
  for_each_item(doc, origin, "PodDisruptionBudget",
                [&](const element& item, const Where& at) { out.push_back(pdb_from(item, origin, at)); });
  return out;
}

std::vector<ClusterNode> nodes_from_json(const nlohmann::json& doc, const std::string& file) {
  return read_nodes(doc.dump(), file, {});
}
std::vector<ClusterPod> pods_from_json(const nlohmann::json& doc, const std::string& file) {
  return read_pods(doc.dump(), file, {});
}
std::vector<ClusterPdb> pdbs_from_json(const nlohmann::json& doc, const std::string& file) {
  return read_pdbs(doc.dump(), file, {});
}

}  // namespace gpuqual
