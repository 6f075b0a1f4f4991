#include "device/measure_class_floors.hpp"

#include <array>

#include "core/record/hardware_class.hpp"

namespace gpuqual {
namespace {

// Sources and the reasoning behind each number: the header.
constexpr std::array kFloors{
    ClassFloors{"h200-sxm-141gb", 600, 3500, 40,
                "not yet measured on the lent machine, a microVM with the GPU passed through, where PCIe "
                "copies may land near the floor for a platform reason"},
};

}  // namespace

std::optional<ClassFloors> class_floors(std::string_view slug) {
  for (const auto& f : kFloors) {
    if (f.slug == slug) return f;
  }
  return std::nullopt;
}

FloorCheck check_floor(double value, double floor, std::string_view provisional) {
  if (value >= floor) return FloorCheck::meets;
  return provisional.empty() ? FloorCheck::below : FloorCheck::below_provisional;
}

std::string gpu_class_slug(const std::string& cuda_name, std::size_t total_memory_bytes) {
  return hardware_class_slug(cuda_name, total_memory_bytes >> 20);
}

}  // namespace gpuqual
