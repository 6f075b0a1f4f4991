#include "core/fleet/matrix_stack.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <string_view>

#include "core/record/hardware_class.hpp"
#include "core/verdict/target.hpp"

namespace gpuqual {

namespace {

// The order components appear in a matrix row: the driver stack first, firmware last.
constexpr std::array<std::string_view, 7> kMatrixComponents{
    "driver_version", "cuda_driver_version", "kernel", "os", "kubernetes", "gpu_operator", "vbios"};

}  // namespace

StackComponents matrix_components(const RunRecord& record) {
  auto found = record_components(record);
  StackComponents out;
  for (std::string_view name : kMatrixComponents) {
    auto it = found.find(std::string(name));
    if (it == found.end() || it->second.empty()) continue;
    std::vector<std::string>& values = it->second;
    std::sort(values.begin(), values.end());
    values.erase(std::unique(values.begin(), values.end()), values.end());
    out.emplace_back(std::string(name), fmt::format("{}", fmt::join(values, ",")));
  }
  return out;
}

std::span<const std::string_view> matrix_component_names() { return kMatrixComponents; }

bool is_matrix_component(std::string_view name) {
  return std::find(kMatrixComponents.begin(), kMatrixComponents.end(), name) != kMatrixComponents.end();
}

std::vector<std::string> record_gpu_uuids(const RunRecord& record) {
  std::vector<std::string> out;
  for (const auto& g : record.gpus) {
    // "unread:" is no identity; the key is the card's however the record spells it.
    if (!g.uuid.empty() && !is_unread_gpu_uuid(g.uuid)) out.push_back(gpu_uuid_key(g.uuid));
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

void order_stack(StackComponents& stack) {
  auto rank = [](const std::string& name) {
    const auto it = std::find(kMatrixComponents.begin(), kMatrixComponents.end(), name);
    return static_cast<std::size_t>(it - kMatrixComponents.begin());
  };
  std::stable_sort(stack.begin(), stack.end(), [&](const auto& a, const auto& b) {
    return std::make_pair(rank(a.first), a.first) < std::make_pair(rank(b.first), b.first);
  });
}

std::vector<std::string> validated_images(const RunRecord& record) {
  std::vector<std::string> out;
  for (const auto& c : record.checks) {
    if (c.name != "container_probe") continue;
    // probes/container/probe_config.cpp writes "<probe>.image" and "<probe>.status" per probe.
    for (const auto& [key, value] : c.attributes) {
      if (!key.ends_with(".image") || value.empty()) continue;
      const std::string probe = key.substr(0, key.size() - std::string_view(".image").size());
      auto st = c.attributes.find(probe + ".status");
      if (st != c.attributes.end() && st->second == "pass") out.push_back(value);
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::string record_node(const RunRecord& record) {
  return record.node.k8s_node_name.empty() ? record.node.hostname : record.node.k8s_node_name;
}

std::string record_compute_capability(const RunRecord& record) {
  return record.gpus.empty() ? std::string() : record.gpus.front().compute_capability;
}

std::string record_gpu_product(const RunRecord& record) {
  return record.gpus.empty() ? std::string() : record.gpus.front().name;
}

}  // namespace gpuqual
