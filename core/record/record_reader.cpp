#include "core/record/record_reader.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <vector>

#include "core/base/input_error.hpp"
#include "core/base/simdjson_fields.hpp"
#include "core/base/units.hpp"
#include "core/base/utc_time.hpp"
#include "core/record/hardware_class.hpp"
#include "core/record/kernel_release.hpp"
#include "core/record/metric_summary.hpp"
#include "core/record/mig_identity.hpp"
#include "core/record/mig_inventory.hpp"
#include "core/record/mig_inventory_reader.hpp"
#include "core/record/skip_reason.hpp"

namespace gpuqual {

namespace {

using simdjson::dom::element;
using simdjson::dom::element_type;
using simdjson_fields::Obj;
using simdjson_fields::Where;

// A not-applicable code (core/record/skip_reason.hpp) belongs to a skip; an unknown code is
// refused rather than read as "could not measure", so a typo cannot change a verdict silently.
std::string read_reason_code(Obj& o, Status status) {
  std::string code = o.str_or("reason_code", "");
  if (code.empty()) return code;
  if (status != Status::skip)
    o.fail("reason_code", fmt::format("a reason code belongs to a skip, not to {}", to_string(status)));
  if (!is_not_applicable_code(code)) o.fail("reason_code", fmt::format("unknown reason code \"{}\"", code));
  return code;
}

std::optional<int> read_gpu(Obj& o) {
  auto g = o.opt_integer("gpu", 0, 1023);
  if (!g) return std::nullopt;
  return static_cast<int>(*g);
}

bool has_mig_device(const GpuInfo& g, std::string_view uuid) {
  return g.mig && find_mig_device(*g.mig, uuid).has_value();
}

// A per-slice result's MIG device (docs/mig.md, "Measuring each slice"): a "MIG-" UUID on a GPU.
// That it is a compute instance of that GPU is checked once the GPUs are known
// (check_gpu_references).
std::string read_mig_device(Obj& o, bool has_gpu) {
  if (!o.has("mig_device")) return "";
  std::string device = o.str("mig_device");
  if (device.rfind("MIG-", 0) != 0 || device.size() == 4)
    o.fail("mig_device", fmt::format("\"{}\" is not a MIG device UUID (MIG-...)", device));
  if (!has_gpu) o.fail("mig_device", "a MIG device needs the GPU it is on (gpu is null)");
  return device;
}

// What NVML failed to give ("uuid: NVML_ERROR_GPU_IS_LOST: GPU is lost"): each entry says
// what, so an empty one says nothing and is refused.
std::vector<std::string> nvml_answers(Obj& o, const char* key) {
  std::vector<std::string> out = o.string_array(key);
  for (const auto& a : out) {
    if (a.empty()) o.fail(key, "an empty entry names nothing NVML failed");
  }
  return out;
}

GpuInfo gpu_from(const element& e, const std::string& file, const Where& where) {
  Obj o(e, file, where);
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
  if (o.has("mig")) {
    Obj mig(o.object("mig"), file, o.at("mig"));
    g.mig = mig_state_from(mig);
  }
  if (o.has("nvml_unread")) g.nvml_unread = nvml_answers(o, "nvml_unread");
  o.finish();
  return g;
}

std::map<std::string, std::string> opt_string_map(Obj& o, const char* key) {
  if (!o.has(key)) return {};
  return o.string_map(key, "expected a string");
}

// The `unread` rule of one stack object (core/record/stack_inventory.hpp): a fact is a string,
// or null (or absent) with its reason in the object's `unread` map; null without a reason, a
// reason for a fact that was read, or a reason naming no fact of the object is an error.
class StackFacts {
 public:
  explicit StackFacts(Obj& o) : o_(o), unread_(opt_string_map(o, "unread")) {}

  StackFact fact(const char* key) {
    if (o_.has(key)) {
      StackFact f = StackFact::read(o_.str(key));
      if (unread_.count(key)) {
        o_.fail(std::string("unread.") + key, "a reason is given for a fact that was read");
      }
      facts_.insert(key);
      return f;
    }
    o_.str_or(key, "");  // marks a null field as known to finish()
    return StackFact::unread(reason(key));
  }

  // The reason for a null field that is not a plain fact (a list): required like a fact's.
  std::string reason(const std::string& key) {
    facts_.insert(key);
    auto it = unread_.find(key);
    if (it == unread_.end() || it->second.empty()) o_.fail(key, "null without a reason in unread");
    return it->second;
  }

  // A field that was read (a list) must not have a reason too.
  void read_field(const std::string& key) {
    facts_.insert(key);
    if (unread_.count(key)) o_.fail("unread." + key, "a reason is given for a fact that was read");
  }

  // Every reason must belong to a fact of this object (checked in key order).
  void finish() {
    for (const auto& [key, why] : unread_) {
      if (!facts_.count(key)) o_.fail("unread." + key, "names no fact of this object");
    }
  }

 private:
  Obj& o_;
  std::map<std::string, std::string> unread_;
  std::set<std::string> facts_;
};

// Calls `each(element accessor)` for every element of the array field `key` of `parent`.
template <class Each>
void for_each_element(Obj& parent, const std::string& file, const char* key, Each&& each) {
  std::size_t i = 0;
  for (element x : parent.array(key)) {
    Obj item(x, file, parent.at(key, i++));
    each(item);
  }
}

NicStack nic_from(Obj& n) {
  NicStack nic;
  StackFacts facts(n);
  for_each_nic_fact(nic, [&](const char* key, StackFact& f) { f = facts.fact(key); });
  facts.finish();
  nic.name = n.nonempty_str("name");
  nic.sysfs_class = n.nonempty_str("class");
  if (!is_nic_class(nic.sysfs_class)) n.fail("class", "must be infiniband or net");
  nic.pci_address = n.str("pci_address");
  n.finish();
  return nic;
}

GpuFirmware gpu_firmware_from(Obj& g) {
  GpuFirmware fw;
  StackFacts facts(g);
  for_each_gpu_firmware_fact(fw, [&](const char* key, StackFact& f) { f = facts.fact(key); });
  facts.finish();
  fw.gpu = static_cast<int>(g.integer("gpu", 0, 1023));
  fw.uuid = g.str("uuid");
  g.finish();
  return fw;
}

// `node.stack.stack_check`: what the `stack` check judged of the host's files.
StackCheckSummary stack_check_from(const element& e, const std::string& file, const Where& where) {
  Obj o(e, file, where);
  StackCheckSummary s;
  s.status = o.str("status");
  if (!parse_status(s.status)) o.fail("status", "must be pass, warn, fail, skip or error");
  s.findings = o.string_array("findings");
  for (const auto& code : s.findings) {
    if (code.empty()) o.fail("findings", "a finding code must not be empty");
  }
  s.reboot_pending = o.boolean("reboot_pending");
  s.cdi = o.str("cdi");
  s.runtime = o.str("runtime");
  o.finish();
  return s;
}

// `node.stack`: the node's facts, its NICs (a list, or null with its reason), the firmware of
// each GPU and the platform components the run was told about.
StackInventory stack_from(const element& e, const std::string& file, const Where& where) {
  Obj o(e, file, where);
  StackInventory s;
  StackFacts facts(o);
  for_each_stack_fact(s, [&](const char* key, StackFact& f) { f = facts.fact(key); });
  if (o.has("nics")) {
    s.nics.emplace();
    for_each_element(o, file, "nics", [&](Obj& n) { s.nics->push_back(nic_from(n)); });
    facts.read_field("nics");
  } else {
    o.str_or("nics", "");  // a null list is known to finish()
    s.nics_reason = facts.reason("nics");
  }
  for_each_element(o, file, "gpu_firmware", [&](Obj& g) { s.gpu_firmware.push_back(gpu_firmware_from(g)); });
  s.platform = opt_string_map(o, "platform");
  for (const auto& [name, version] : s.platform) {
    if (name.empty()) o.fail("platform", "a platform component needs a name");
  }
  if (o.has("stack_check"))
    s.stack_check = stack_check_from(o.object("stack_check"), file, o.at("stack_check"));
  facts.finish();
  o.finish();
  return s;
}

PciGpu pci_gpu_from(Obj& p) {
  PciGpu g;
  g.bus_id = p.nonempty_str("bus_id");
  g.device_id = p.str("device_id");
  g.pci_class = p.str("class");
  g.driver = p.str("driver");
  p.finish();
  return g;
}

NodeFacts node_from(const element& e, const std::string& file, const Where& where) {
  Obj o(e, file, where);
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
  n.k8s_labels = o.string_map("k8s_labels", "label value must be a string");
  if (o.has("pci_gpus")) {
    n.pci_gpus.emplace();
    for_each_element(o, file, "pci_gpus", [&](Obj& p) { n.pci_gpus->push_back(pci_gpu_from(p)); });
  }
  // Facts added within v1 are optional, so records of older gpuqual versions read as before.
  n.kernel_module_version = o.str_or("kernel_module_version", "");
  n.nvml_driver_version = o.str_or("nvml_driver_version", "");
  n.nvml_cuda_driver_version = o.str_or("nvml_cuda_driver_version", "");
  n.libcuda_version = o.str_or("libcuda_version", "");
  n.boot_id = o.str_or("boot_id", "");
  n.visible_devices = o.str_or("visible_devices", "");
  if (o.has("nvml_devices_unread")) n.nvml_devices_unread = nvml_answers(o, "nvml_devices_unread");
  // `uname -m` apart from the release; an old record's "6.1.0-28-amd64 (x86_64)" is split here.
  n.arch = o.str_or("arch", "");
  const std::string as_written = n.kernel;
  if (auto bad = normalise_recorded_kernel(n.kernel, n.arch)) o.fail("kernel", *bad);
  if (n.kernel != as_written) n.kernel_as_written = as_written;
  n.uptime_s = o.opt_number("uptime_s", 0);
  if (o.has("stack")) n.stack = stack_from(o.object("stack"), file, o.at("stack"));
  o.finish();
  return n;
}

Metric metric_from(const element& e, const std::string& file, const Where& where) {
  Obj o(e, file, where);
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
  m.mig_device = read_mig_device(o, m.gpu.has_value());
  if (!m.samples.empty() && (m.median < m.min || m.median > m.max || m.min > m.max)) {
    o.fail("median", fmt::format("median {} is not within [min {}, max {}]", m.median, m.min, m.max));
  }
  // Judging uses the numbers recomputed from the samples; a stored summary that says otherwise
  // (samples all 500, median 771) is a corrupt or edited record.
  if (auto mismatch = recompute_summary(m)) o.fail(mismatch->field, mismatch->problem);
  o.finish();
  return m;
}

Finding finding_from(const element& e, const std::string& file, const Where& where) {
  Obj o(e, file, where);
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
  f.mig_device = read_mig_device(o, f.gpu.has_value());
  o.finish();
  return f;
}

GpuCheckStatus per_gpu_from(Obj& g) {
  GpuCheckStatus gs;
  gs.gpu = static_cast<int>(g.integer("gpu", 0, 1023));
  const std::string gst = g.str("status");
  auto gs_status = parse_status(gst);
  if (!gs_status) g.fail("status", fmt::format("unknown status \"{}\"", gst));
  gs.status = *gs_status;
  gs.reason = g.str("reason");
  gs.reason_code = read_reason_code(g, gs.status);
  gs.mig_device = read_mig_device(g, true);
  g.finish();
  return gs;
}

CheckResult check_from(const element& e, const std::string& file, const Where& where) {
  Obj o(e, file, where);
  CheckResult c;
  c.name = o.nonempty_str("name");
  const std::string st = o.str("status");
  auto s = parse_status(st);
  if (!s) o.fail("status", fmt::format("unknown status \"{}\"", st));
  c.status = *s;
  c.reason = o.str("reason");
  if (c.reason.empty() &&
      (c.status == Status::skip || c.status == Status::error || c.status == Status::fail)) {
    o.fail("reason", fmt::format("a {} status needs a reason", st));
  }
  c.reason_code = read_reason_code(o, c.status);
  c.optional = o.opt_boolean("optional").value_or(false);
  c.started_at = o.str("started_at");
  c.duration_s = o.number("duration_s", 0);
  for_each_element(o, file, "per_gpu", [&](Obj& g) { c.per_gpu.push_back(per_gpu_from(g)); });
  std::size_t i = 0;
  const simdjson::dom::array metrics = o.array("metrics");
  c.metrics.reserve(metrics.size());
  for (element m : metrics) c.metrics.push_back(metric_from(m, file, o.at("metrics", i++)));
  i = 0;
  for (element f : o.array("findings")) c.findings.push_back(finding_from(f, file, o.at("findings", i++)));
  c.attributes = o.string_map("attributes", "attribute values are strings");
  o.finish();
  return c;
}

ToolInfo tool_from(Obj& o) {
  Obj t(o.object("tool"), o.file(), o.at("tool"));
  ToolInfo tool;
  tool.version = t.str("version");
  tool.git_revision = t.str("git_revision");
  t.finish();
  return tool;
}

HardwareClass hardware_class_from(Obj& o) {
  Obj h(o.object("hardware_class"), o.file(), o.at("hardware_class"));
  HardwareClass hc;
  hc.slug = h.nonempty_str("slug");
  hc.gpu_count = static_cast<int>(h.integer("gpu_count", 0, 1024));
  hc.product = h.str("product");
  if (auto mib = h.opt_integer("memory_mib", 0)) hc.memory_mib = static_cast<std::uint64_t>(*mib);
  hc.overridden = h.boolean("overridden");
  h.finish();
  return hc;
}

// The GPUs, each index once, and the class they give (docs/hardware-class.md, "Identity").
void read_gpus(Obj& o, RunRecord& r, std::set<int>& indices) {
  std::size_t i = 0;
  for (element g_el : o.array("gpus")) {
    const Where p = o.at("gpus", i++);
    GpuInfo g = gpu_from(g_el, o.file(), p);
    if (!indices.insert(g.index).second)
      throw InputError(o.file(), p.str() + ".index", fmt::format("duplicate GPU index {}", g.index));
    r.gpus.push_back(std::move(g));
  }
  if (auto bad = gpu_identity_problem(r.hardware_class, r.gpus)) {
    throw InputError(o.file(), bad->field, bad->problem);
  }
  if (auto bad = mig_identity_problem(r.gpus)) throw InputError(o.file(), bad->field, bad->problem);
}

// Every GPU a check names must be a GPU of the record, and every MIG device one of its
// compute instances.
void check_gpu_references(const CheckResult& c, const std::vector<GpuInfo>& gpus, const std::string& file,
                          const Where& p) {
  auto check_gpu = [&](const std::optional<int>& gpu, const std::string& mig_device, const char* array,
                       std::size_t k) {
    if (!gpu) return;
    const auto g = std::find_if(gpus.begin(), gpus.end(), [&](const GpuInfo& x) { return x.index == *gpu; });
    if (g == gpus.end()) {
      throw InputError(file, Where{&p, array, k}.str() + ".gpu",
                       fmt::format("GPU {} is not in $.gpus", *gpu));
    }
    if (!mig_device.empty() && !has_mig_device(*g, mig_device)) {
      throw InputError(file, Where{&p, array, k}.str() + ".mig_device",
                       fmt::format("{} is not a MIG device of GPU {} in $.gpus", mig_device, *gpu));
    }
  };
  for (std::size_t k = 0; k < c.metrics.size(); ++k)
    check_gpu(c.metrics[k].gpu, c.metrics[k].mig_device, "metrics", k);
  for (std::size_t k = 0; k < c.findings.size(); ++k)
    check_gpu(c.findings[k].gpu, c.findings[k].mig_device, "findings", k);
  for (std::size_t k = 0; k < c.per_gpu.size(); ++k)
    check_gpu(c.per_gpu[k].gpu, c.per_gpu[k].mig_device, "per_gpu", k);
}

// A record that says its run completed says when (docs/compare.md, "What earns a PASS"):
// `complete: true` needs an RFC 3339 `ended_at`, not before `started_at`. Judging a record by its
// age, ordering a before- and an after-record, and dropping a stale one all read these times; a
// complete record without them cannot be placed in time. An open run (complete: false) has none.
void check_completed_times(const Obj& o, const RunRecord& r) {
  if (!r.complete) return;
  for (const auto& [field, value] :
       {std::pair{"started_at", &r.started_at}, std::pair{"ended_at", &r.ended_at}}) {
    if (is_rfc3339_text(*value)) continue;
    o.fail(field, value->empty()
                      ? std::string("empty, but the record says its run completed (complete: true)")
                      : fmt::format("\"{}\" is not an RFC 3339 time, and the record says its run "
                                    "completed (complete: true)",
                                    *value));
  }
  const auto start = parse_rfc3339_ms(r.started_at), end = parse_rfc3339_ms(r.ended_at);
  if (start && end && *end < *start) {
    o.fail("ended_at", fmt::format("{} is before started_at {}", r.ended_at, r.started_at));
  }
}

RunRecord record_from(const element& root, const std::string& file) {
  const Where root_where;
  Obj o(root, file, root_where);
  RunRecord r;
  r.schema = o.str("schema");
  if (r.schema != kRunSchema) {
    o.fail("schema", fmt::format("unsupported schema \"{}\" (this gpuqual reads {})", r.schema, kRunSchema));
  }
  r.tool = tool_from(o);
  r.run_id = o.nonempty_str("run_id");
  r.started_at = o.str("started_at");
  r.ended_at = o.str("ended_at");
  r.complete = o.boolean("complete");
  check_completed_times(o, r);
  r.argv = o.string_array("argv");
  r.suite = o.str("suite");
  r.node = node_from(o.object("node"), file, o.at("node"));
  r.hardware_class = hardware_class_from(o);
  std::set<int> indices;
  read_gpus(o, r, indices);
  std::size_t i = 0;
  for (element c_el : o.array("checks")) {
    const Where p = o.at("checks", i++);
    CheckResult c = check_from(c_el, file, p);
    check_gpu_references(c, r.gpus, file, p);
    r.checks.push_back(std::move(c));
  }
  o.finish();
  return r;
}

}  // namespace

struct StreamingRecordReader::Impl {
  explicit Impl(const JsonLimits& l) : limits(l), parser(l) {}

  // simdjson says what is wrong, not where: for malformed text the message is nlohmann's, with
  // line and column, as read_json_file gives it. Text nlohmann reads and simdjson refuses (an
  // integer beyond 64 bits, which nlohmann reads as a double) is read as nlohmann rewrites it,
  // so the reader accepts exactly what nlohmann's parser and these rules accept.
  element root(const std::string& origin) {
    try {
      return parser.parse(text, origin);
    } catch (const InputError&) {
      const nlohmann::json located = parse_json_text(text, origin, limits);  // throws the located message
      text = located.dump();
      simdjson_fields::Parser::pad(text);
      return parser.parse(text, origin);
    }
  }
  element root(std::string_view in, const std::string& origin) {
    text.assign(in);
    simdjson_fields::Parser::pad(text);
    return root(origin);
  }

  JsonLimits limits;
  simdjson_fields::Parser parser;
  std::string text;  // the text being read; its allocation, with simdjson's padding, is reused
};

StreamingRecordReader::StreamingRecordReader(const JsonLimits& limits)
    : impl_(std::make_unique<Impl>(limits)) {}

StreamingRecordReader::~StreamingRecordReader() = default;

RunRecord StreamingRecordReader::read(const std::string& path) {
  // The text keeps SIMDJSON_PADDING bytes of capacity behind it: simdjson parses it in place.
  read_text_file_into(path, impl_->limits.max_bytes, impl_->text, simdjson::SIMDJSON_PADDING);
  return record_from(impl_->root(path), path);
}

RunRecord StreamingRecordReader::parse(std::string_view text, const std::string& origin) {
  return record_from(impl_->root(text, origin), origin);
}

CheckResult StreamingRecordReader::parse_check(std::string_view text, const std::string& origin,
                                               const std::string& path) {
  return check_from(impl_->root(text, origin), origin, Where{nullptr, "", Where::kNoIndex, path});
}

Finding StreamingRecordReader::parse_finding(std::string_view text, const std::string& origin,
                                             const std::string& path) {
  return finding_from(impl_->root(text, origin), origin, Where{nullptr, "", Where::kNoIndex, path});
}

}  // namespace gpuqual
