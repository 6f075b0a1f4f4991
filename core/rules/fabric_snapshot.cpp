#include "core/rules/fabric_snapshot.hpp"

#include <nlohmann/json.hpp>

#include "core/base/input_error.hpp"
#include "core/base/json_fields.hpp"

namespace gpuqual {

nlohmann::json to_json(const FabricSnapshot& s) {
  nlohmann::json hcas = nlohmann::json::array();
  for (const auto& h : s.hcas) {
    nlohmann::json ports = nlohmann::json::array();
    for (const auto& p : h.ports) {
      nlohmann::json jp{{"number", p.number},    {"state", p.state}, {"phys_state", p.phys_state},
                        {"width", p.width},      {"speed", p.speed}, {"link_layer", p.link_layer},
                        {"counters", p.counters}};
      jp["rate_gbps"] = p.rate_gbps ? nlohmann::json(*p.rate_gbps) : nlohmann::json(nullptr);
      ports.push_back(std::move(jp));
    }
    nlohmann::json jh{{"name", h.name},         {"fw_ver", h.fw_ver},       {"hca_type", h.hca_type},
                      {"board_id", h.board_id}, {"node_guid", h.node_guid}, {"pci_address", h.pci_address},
                      {"pci_path", h.pci_path}, {"ports", std::move(ports)}};
    jh["numa_node"] = h.numa_node ? nlohmann::json(*h.numa_node) : nlohmann::json(nullptr);
    hcas.push_back(std::move(jh));
  }
  return nlohmann::json{{"root", s.root}, {"hcas", std::move(hcas)}};
}

FabricSnapshot fabric_snapshot_from_json(const nlohmann::json& j, const std::string& origin) {
  JsonObject root(j, origin, "$");
  FabricSnapshot s;
  s.root = root.nonempty_str("root");
  const nlohmann::json& hcas = root.array("hcas");
  for (std::size_t i = 0; i < hcas.size(); ++i) {
    JsonObject o(hcas[i], origin, JsonObject::index_path("$.hcas", i));
    FabricHca h;
    h.name = o.nonempty_str("name");
    h.fw_ver = o.str_or("fw_ver", "");
    h.hca_type = o.str_or("hca_type", "");
    h.board_id = o.str_or("board_id", "");
    h.node_guid = o.str_or("node_guid", "");
    h.pci_address = o.str_or("pci_address", "");
    if (o.has("pci_path")) h.pci_path = o.string_array("pci_path");
    if (auto n = o.opt_integer("numa_node", 0, 4096)) h.numa_node = static_cast<int>(*n);
    const nlohmann::json& ports = o.array("ports");
    for (std::size_t k = 0; k < ports.size(); ++k) {
      const std::string path = JsonObject::index_path(o.child_path("ports"), k);
      JsonObject po(ports[k], origin, path);
      FabricPort p;
      p.number = static_cast<int>(po.integer("number", 0, 1 << 16));
      p.state = po.str_or("state", "");
      p.phys_state = po.str_or("phys_state", "");
      p.width = po.str_or("width", "");
      p.speed = po.str_or("speed", "");
      p.link_layer = po.str_or("link_layer", "");
      p.rate_gbps = po.opt_number("rate_gbps", 0);
      const nlohmann::json& counters = po.object("counters");
      for (const auto& [name, value] : counters.items()) {
        if (!value.is_number_unsigned() && !(value.is_number_integer() && value.get<std::int64_t>() >= 0))
          throw InputError(origin, path + ".counters." + name, "expected a non-negative integer");
        p.counters[name] = value.get<std::uint64_t>();
      }
      po.finish({"rate_gbps"});
      h.ports.push_back(std::move(p));
    }
    o.finish({"numa_node"});
    s.hcas.push_back(std::move(h));
  }
  root.finish();
  return s;
}

}  // namespace gpuqual
