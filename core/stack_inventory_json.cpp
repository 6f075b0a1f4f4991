#include "core/stack_inventory_json.hpp"

#include <nlohmann/json.hpp>

#include "core/json_fields.hpp"
#include "core/stack_fact_reader.hpp"

namespace gpuqual {

using nlohmann::json;

namespace {

// Writes one fact: its value, or null with the reason added to `unread`.
void put_fact(json& j, json& unread, const char* key, const StackFact& f) {
  if (f.value) {
    j[key] = *f.value;
  } else {
    j[key] = nullptr;
    unread[key] = f.reason;
  }
}

// Written even when empty, so every object of the stack has the same keys.
void put_unread(json& j, json unread) { j["unread"] = std::move(unread); }

// An object of string values (`unread`, `platform`), each non-string value an error.
std::map<std::string, std::string> string_map(JsonObject& o, const char* key) {
  std::map<std::string, std::string> out;
  const json* m = o.opt_object(key);
  if (!m) return out;
  for (auto it = m->begin(); it != m->end(); ++it) {
    if (!it->is_string()) o.fail(std::string(key) + "." + it.key(), "expected a string");
    out[it.key()] = it->get<std::string>();
  }
  return out;
}

template <class T, class Each>
T read_facts(JsonObject& o, Each each) {
  T out;
  StackFactReader<JsonObject> r(o, string_map(o, "unread"));
  each(out, [&](const char* key, StackFact& f) { f = r.fact(key); });
  r.finish();
  return out;
}

}  // namespace

json to_json(const StackInventory& s) {
  json j = json::object();
  json unread = json::object();
  for_each_stack_fact(s, [&](const char* key, const StackFact& f) { put_fact(j, unread, key, f); });
  if (s.nics) {
    json nics = json::array();
    for (const auto& n : *s.nics) {
      json nj{{"name", n.name}, {"class", n.sysfs_class}, {"pci_address", n.pci_address}};
      json nu = json::object();
      for_each_nic_fact(n, [&](const char* key, const StackFact& f) { put_fact(nj, nu, key, f); });
      put_unread(nj, std::move(nu));
      nics.push_back(std::move(nj));
    }
    j["nics"] = std::move(nics);
  } else {
    j["nics"] = nullptr;
    unread["nics"] = s.nics_reason;
  }
  json gpus = json::array();
  for (const auto& g : s.gpu_firmware) {
    json gj{{"gpu", g.gpu}, {"uuid", g.uuid}};
    json gu = json::object();
    for_each_gpu_firmware_fact(g, [&](const char* key, const StackFact& f) { put_fact(gj, gu, key, f); });
    put_unread(gj, std::move(gu));
    gpus.push_back(std::move(gj));
  }
  j["gpu_firmware"] = std::move(gpus);
  j["platform"] = s.platform;
  put_unread(j, std::move(unread));
  return j;
}

StackInventory stack_from_json(const json& j, const std::string& file, const std::string& path) {
  JsonObject o(j, file, path);
  StackInventory s;
  StackFactReader<JsonObject> r(o, string_map(o, "unread"));
  for_each_stack_fact(s, [&](const char* key, StackFact& f) { f = r.fact(key); });
  if (const json* nics = o.opt_array("nics")) {
    r.read_field("nics");
    s.nics.emplace();
    const std::string nics_path = o.child_path("nics");
    for (std::size_t i = 0; i < nics->size(); ++i) {
      JsonObject n((*nics)[i], file, JsonObject::index_path(nics_path, i));
      NicStack nic = read_facts<NicStack>(n, [](NicStack& x, auto fn) { for_each_nic_fact(x, fn); });
      nic.name = n.nonempty_str("name");
      nic.sysfs_class = n.nonempty_str("class");
      if (!is_nic_class(nic.sysfs_class)) n.fail("class", "must be infiniband or net");
      nic.pci_address = n.str("pci_address");
      n.finish();
      s.nics->push_back(std::move(nic));
    }
  } else {
    s.nics_reason = r.reason("nics");
  }
  const json& gpus = o.array("gpu_firmware");
  const std::string gpus_path = o.child_path("gpu_firmware");
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    JsonObject g(gpus[i], file, JsonObject::index_path(gpus_path, i));
    GpuFirmware fw = read_facts<GpuFirmware>(g, [](GpuFirmware& x, auto fn) { for_each_gpu_firmware_fact(x, fn); });
    fw.gpu = static_cast<int>(g.integer("gpu", 0, 1023));
    fw.uuid = g.str("uuid");
    g.finish();
    s.gpu_firmware.push_back(std::move(fw));
  }
  s.platform = string_map(o, "platform");
  for (const auto& [name, version] : s.platform) {
    if (name.empty()) o.fail("platform", "a platform component needs a name");
  }
  r.finish();
  o.finish();
  return s;
}

}  // namespace gpuqual
