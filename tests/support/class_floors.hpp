#pragma once
// Floors for the GPU tests, per hardware class: a figure under its floor is a real shortfall of
// that part (a slow link, a throttled or broken GPU), not only a unit error. There is one floor
// table, the shipped datasheet floors baselines/floors/<class>.yaml (their sources and fractions
// are in each file's header; docs/baselines.md): `gpuqual compare --baseline auto` judges a
// record of a class without a measured baseline against the same file, so a GPU test and the
// judgement of a record can never disagree on what is too slow. A class without a floors file
// falls back to the tests' unit-error bounds. No CUDA here: this is tested on the CPU.
//
// The PCIe floors are provisional in a virtual machine (the CPU's hypervisor flag): with the GPU
// passed through, host-device copies cross a virtualised root complex and an IOMMU, and may land
// near the floor for a platform reason. Until a window has measured PCIe there, a figure under
// the floor is recorded and marked, not failed. On bare metal the floor is firm.
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace gpuqual {

struct ClassFloors {
  std::string slug;
  std::string source;                   // the floors file they were read from
  std::map<std::string, double> floor;  // metric name -> floor (expected x (1 - tolerance))
  std::string pcie_provisional;         // why the PCIe floors are not yet firm ("" when they are)

  // The floor of `metric` ("gemm.bf16.tflops", "hbm.copy.gbps", "pcie.h2d.gbps"), or nullopt.
  std::optional<double> of(const std::string& metric) const;
  // Why the floor of `metric` is provisional ("" when it is firm).
  std::string provisional(const std::string& metric) const;
};

// How a figure stands against a floor: under a provisional one it is recorded, not failed.
enum class FloorCheck { meets, below, below_provisional };
FloorCheck check_floor(double value, double floor, std::string_view provisional);

// Why a PCIe floor is provisional on this machine ("" on bare metal): `in_vm` from
// machine_is_vm().
std::string pcie_floor_provisional(bool in_vm);

// True when /proc/cpuinfo's text names the hypervisor CPU flag (a virtual machine).
bool cpuinfo_says_hypervisor(std::string_view cpuinfo);
// This machine: /proc/cpuinfo read through cpuinfo_says_hypervisor.
bool machine_is_vm();

// The floors of hardware class `slug` ("h200-sxm-141gb") from <baselines_dir>/floors/<slug>.yaml,
// or nullopt when the class has no floors file. A floors file that does not load is an
// InputError naming it. Only `direction: higher` metrics have a floor.
std::optional<ClassFloors> class_floors(const std::string& slug, const std::string& baselines_dir,
                                        bool in_vm);

// The class slug of a GPU from its CUDA name and total memory, as the inventory derives it.
std::string gpu_class_slug(const std::string& cuda_name, std::size_t total_memory_bytes);

}  // namespace gpuqual
