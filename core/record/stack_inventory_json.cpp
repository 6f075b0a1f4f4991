#include "core/record/stack_inventory_json.hpp"

#include <nlohmann/json.hpp>

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
  if (s.stack_check) {
    const StackCheckSummary& c = *s.stack_check;
    j["stack_check"] = json{{"status", c.status},
                            {"findings", c.findings},
                            {"reboot_pending", c.reboot_pending},
                            {"cdi", c.cdi},
                            {"runtime", c.runtime}};
  }
  put_unread(j, std::move(unread));
  return j;
}

}  // namespace gpuqual
