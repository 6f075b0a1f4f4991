#include "suites/check_catalog.hpp"

#include <array>

#include "suites/check.hpp"

namespace gpuqual {

namespace {
// One line per check of the project (README.md, "What it checks"). Add a check here when it can be absent
// from a build; a check that is always built needs only its GPUQUAL_REGISTER_CHECK line.
constexpr std::array<CatalogEntry, 17> kCatalog{{
    {"stack", "the host's container stack: CDI specs, runtime handler, Fabric Manager, kernel modules"},
    {"compat", "driver vs CUDA runtime and image compatibility preflight"},
    {"health", "NVML health: ECC, remapped rows, XID, throttling, PCIe link, NVLink"},
    {"gemm", "cuBLASLt GEMM throughput per precision, verified"},
    {"hbm", "HBM bandwidth: copy, scale, add, triad, read, write, verified"},
    {"pcie", "host<->device copy bandwidth through the copy engines, verified"},
    {"p2p", "peer-to-peer copy bandwidth between GPU pairs"},
    {"nccl_allreduce", "NCCL all-reduce bus bandwidth and correctness"},
    {"memtest", "device memory pattern test"},
    {"burnin", "sustained GEMM + memtest load with telemetry"},
    {"container_probe", "container launch probes through docker/podman"},
    {"telemetry", "dcgm-exporter series present for every GPU"},
    {"fabric", "InfiniBand/RoCE links, error counters, GPUDirect RDMA, GPU-HCA affinity"},
    {"storage", "the site's storage paths: mount, free space, verified write/read, fsync latency"},
    {"network", "the site's endpoints: DNS, TCP connect, TLS certificate, HTTP(S) status"},
    {"mig", "MIG layout against the MIG manager's config, its state label and the advertised resources"},
    {"gpu_sharing",
     "time-slicing/MPS: replicas labels, device plugin config and nvidia.com/gpu capacity agree"},
}};
}  // namespace

std::span<const CatalogEntry> check_catalog() { return kCatalog; }

bool in_check_catalog(std::string_view name) {
  for (const auto& e : kCatalog) {
    if (e.name == name) return true;
  }
  return false;
}

CheckAvailability check_availability(const std::string& name) {
  if (CheckRegistry::instance().find(name)) return CheckAvailability::built_in;
  if (in_check_catalog(name)) return CheckAvailability::not_built;
  return CheckAvailability::unknown;
}

}  // namespace gpuqual
