#include "core/record/mig_inventory_reader.hpp"

namespace gpuqual {

namespace {

using simdjson_fields::Obj;

bool read_mode(Obj& o, const char* key) {
  const std::string mode = o.str(key);
  if (mode == "enabled") return true;
  if (mode != "disabled") o.fail(key, "expected \"enabled\" or \"disabled\"");
  return false;
}

MigComputeInstance compute_instance_from(Obj& o) {
  MigComputeInstance ci;
  ci.id = static_cast<unsigned>(o.integer("id", 0, 1023));
  ci.profile = o.nonempty_str("profile");
  ci.uuid = o.str("uuid");
  if (ci.uuid.rfind("MIG-", 0) != 0) o.fail("uuid", "a MIG device's UUID starts with \"MIG-\"");
  ci.sm_count = static_cast<int>(o.integer("sm_count", 0, 100000));
  o.finish();
  return ci;
}

MigGpuInstance gpu_instance_from(Obj& o) {
  MigGpuInstance gi;
  gi.id = static_cast<unsigned>(o.integer("id", 0, 1023));
  gi.profile = o.nonempty_str("profile");
  Obj placement(o.object("placement"), o.file(), o.at("placement"));
  gi.placement_start = static_cast<unsigned>(placement.integer("start", 0, 64));
  gi.placement_size = static_cast<unsigned>(placement.integer("size", 1, 64));
  placement.finish();
  gi.memory_bytes = static_cast<std::uint64_t>(o.integer("memory_bytes", 0));
  std::size_t i = 0;
  for (simdjson::dom::element e : o.array("compute_instances")) {
    Obj item(e, o.file(), o.at("compute_instances", i++));
    gi.compute_instances.push_back(compute_instance_from(item));
  }
  o.finish();
  return gi;
}

}  // namespace

MigState mig_state_from(Obj& o) {
  MigState mig;
  mig.current = read_mode(o, "mode_current");
  mig.pending = read_mode(o, "mode_pending");
  std::size_t i = 0;
  for (simdjson::dom::element e : o.array("gpu_instances")) {
    Obj item(e, o.file(), o.at("gpu_instances", i++));
    mig.gpu_instances.push_back(gpu_instance_from(item));
  }
  mig.unread = o.str_or("unread", "");
  o.finish();
  return mig;
}

}  // namespace gpuqual
