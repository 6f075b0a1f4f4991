#include "device/pcie/pcie_runner.hpp"

#include <cstring>
#include <exception>
#include <sstream>
#include <thread>

#include "device/host/cpu_affinity.hpp"
#include "device/measure/measure_timers.hpp"
#include "kernels/copy_pattern_kernels.cuh"

namespace gpuqual {

namespace {

std::uint64_t up_seed(std::uint64_t seed, int gpu) {
  return seed * 1000003ULL + 2ULL * static_cast<std::uint64_t>(gpu) + 1;
}
std::uint64_t down_seed(std::uint64_t seed, int gpu) {
  return seed * 1000003ULL + 2ULL * static_cast<std::uint64_t>(gpu) + 2;
}

// Binds the calling thread to the CPUs of the GPU's NUMA node for as long as `affinity` lives;
// returns what was done, for the record.
std::string bind_to_numa_node(int gpu, const std::string& sysfs_root, std::optional<int>* node_out,
                              ScopedThreadAffinity& affinity) {
  char bus_id[64] = {0};
  if (cudaDeviceGetPCIBusId(bus_id, sizeof bus_id, gpu) != cudaSuccess) {
    (void)cudaGetLastError();
    return "default placement: PCI bus id unavailable";
  }
  const auto address = sysfs_pci_address(bus_id);
  if (!address) return std::string("default placement: unrecognised PCI bus id ") + bus_id;
  const auto node = read_numa_node(sysfs_root, *address);
  if (!node) return "default placement: sysfs names no NUMA node for " + *address;
  *node_out = node;
  const auto cpus = read_numa_cpus(sysfs_root, *node);
  if (!cpus || cpus->empty()) return "default placement: no CPU list for NUMA node " + std::to_string(*node);
  if (!affinity.bind(*cpus)) {
    return "default placement: cannot bind to the CPUs of NUMA node " + std::to_string(*node) +
           " (cgroup cpuset?)";
  }
  return "host buffers first-touched by a thread bound to NUMA node " + std::to_string(*node) + "'s CPUs";
}

}  // namespace

PcieBench::PcieBench(int gpu, const PcieConfig& config)
    : gpu_(gpu), config_(config), words_(config.bytes / sizeof(std::uint64_t)) {
  // The binding lasts while the pinned buffers are allocated and first touched, and is given
  // back when the constructor returns: the thread's later work is not confined to the node.
  ScopedThreadAffinity affinity;
  placement_ = config.numa_placement ? bind_to_numa_node(gpu, config.sysfs_root, &numa_node_, affinity)
                                     : "default placement: NUMA placement disabled by the suite";
  const std::size_t bytes = words_ * sizeof(std::uint64_t);
  host_src_ = PinnedBuffer(bytes);
  host_dst_ = PinnedBuffer(bytes);
  fill_pattern_host(host_src_.as<std::uint64_t>(), words_, up_seed(config.seed, gpu));
  std::memset(host_dst_.get(), 0, bytes);
  dev_src_ = DeviceBuffer(bytes);
  dev_dst_ = DeviceBuffer(bytes);
  counters_ = DeviceBuffer(2 * sizeof(unsigned long long));
  CUDA_CHECK(
      kernels::launch_pattern_fill(dev_src_.as<std::uint64_t>(), words_, down_seed(config.seed, gpu), down_));
  down_.synchronize();
}

void PcieBench::prepare(CopyDirection d) {
  CUDA_CHECK(cudaSetDevice(gpu_));
  // Destinations start as zeros, which the pattern never is everywhere: a copy that did not
  // happen cannot pass.
  if (d != CopyDirection::d2h) CUDA_CHECK(cudaMemsetAsync(dev_dst_.get(), 0, dev_dst_.bytes(), up_));
  if (d != CopyDirection::h2d) std::memset(host_dst_.get(), 0, host_dst_.bytes());
  up_.synchronize();
}

void PcieBench::enqueue(CopyDirection d) {
  CUDA_CHECK(cudaSetDevice(gpu_));
  const std::size_t bytes = words_ * sizeof(std::uint64_t);
  switch (d) {
    case CopyDirection::h2d:
      CUDA_CHECK(cudaMemcpyAsync(dev_dst_.get(), host_src_.get(), bytes, cudaMemcpyHostToDevice, up_));
      break;
    case CopyDirection::d2h:
      CUDA_CHECK(cudaMemcpyAsync(host_dst_.get(), dev_src_.get(), bytes, cudaMemcpyDeviceToHost, down_));
      break;
    case CopyDirection::bidir:
      fork_.record(up_);
      CUDA_CHECK(cudaStreamWaitEvent(down_, fork_.get(), 0));
      CUDA_CHECK(cudaMemcpyAsync(dev_dst_.get(), host_src_.get(), bytes, cudaMemcpyHostToDevice, up_));
      CUDA_CHECK(cudaMemcpyAsync(host_dst_.get(), dev_src_.get(), bytes, cudaMemcpyDeviceToHost, down_));
      join_.record(down_);
      CUDA_CHECK(cudaStreamWaitEvent(up_, join_.get(), 0));
      break;
  }
}

void PcieBench::wait() {
  CUDA_CHECK(cudaSetDevice(gpu_));
  up_.synchronize();
  down_.synchronize();
}

std::uint64_t PcieBench::verify(CopyDirection d, std::string* problem) {
  CUDA_CHECK(cudaSetDevice(gpu_));
  std::uint64_t total = 0;
  std::ostringstream why;
  if (d != CopyDirection::d2h) {
    const unsigned long long init[2] = {0, ~0ULL};
    unsigned long long got[2] = {0, 0};
    CUDA_CHECK(cudaMemcpyAsync(counters_.get(), init, sizeof init, cudaMemcpyHostToDevice, up_));
    CUDA_CHECK(kernels::launch_pattern_verify(dev_dst_.as<std::uint64_t>(), words_,
                                              up_seed(config_.seed, gpu_), counters_.as<unsigned long long>(),
                                              up_));
    CUDA_CHECK(cudaMemcpyAsync(got, counters_.get(), sizeof got, cudaMemcpyDeviceToHost, up_));
    up_.synchronize();
    if (got[0])
      why << "gpu " << gpu_ << ": " << got[0] << " of " << words_
          << " words wrong after host-to-device copy (first at word " << got[1] << ")";
    total += got[0];
  }
  if (d != CopyDirection::h2d) {
    std::uint64_t first = 0;
    const auto bad = count_pattern_mismatches_host(host_dst_.as<std::uint64_t>(), words_,
                                                   down_seed(config_.seed, gpu_), &first);
    if (bad)
      why << (why.tellp() > 0 ? "; " : "") << "gpu " << gpu_ << ": " << bad << " of " << words_
          << " words wrong after device-to-host copy (first at word " << first << ")";
    total += bad;
  }
  *problem = why.str();
  return total;
}

CopyResult PcieBench::run(CopyDirection d, const MeasureHooks& hooks, const CopyCorruptor& corrupt) {
  prepare(d);
  CudaEventTimer timer(d == CopyDirection::d2h ? down_.get() : up_.get(), [&] { enqueue(d); });
  CopyResult r;
  r.direction = d;
  r.bytes_per_op = copy_bytes_per_op(d, words_ * sizeof(std::uint64_t));
  r.measure = measure(timer, config_.measure, hooks);
  wait();
  if (corrupt) {
    corrupt(d, dev_dst_.as<std::uint64_t>(), host_dst_.as<std::uint64_t>(), words_);
    CUDA_CHECK(cudaDeviceSynchronize());
  }
  r.mismatches = verify(d, &r.problem);
  return r;
}

CopyResult run_pcie_all(std::vector<PcieBench*>& benches, CopyDirection d, const MeasureConfig& config,
                        const MeasureHooks& hooks) {
  CopyResult r;
  r.direction = d;
  for (auto* b : benches) {
    b->prepare(d);
    r.bytes_per_op += copy_bytes_per_op(d, b->bytes());
  }
  WallTimer timer([&](int reps) {
    for (int i = 0; i < reps; ++i)
      for (auto* b : benches) b->enqueue(d);
    for (auto* b : benches) b->wait();
  });
  r.measure = measure(timer, config, hooks);
  // Each GPU's check on its own thread: the device-to-host check reads the whole host buffer
  // (1 GiB per GPU in the canary, ~0.3 s), which one thread would do eight times over on an
  // 8-GPU node.
  std::vector<std::string> problems(benches.size());
  std::vector<std::uint64_t> bad(benches.size(), 0);
  std::vector<std::exception_ptr> errors(benches.size());
  std::vector<std::thread> threads;
  threads.reserve(benches.size());
  for (std::size_t k = 0; k < benches.size(); ++k) {
    threads.emplace_back([&, k] {
      try {
        bad[k] = benches[k]->verify(d, &problems[k]);
      } catch (...) {
        errors[k] = std::current_exception();
      }
    });
  }
  for (auto& t : threads) t.join();
  for (const auto& e : errors) {
    if (e) std::rethrow_exception(e);
  }
  for (std::size_t k = 0; k < benches.size(); ++k) {
    r.mismatches += bad[k];
    if (!problems[k].empty()) r.problem += (r.problem.empty() ? "" : "; ") + problems[k];
  }
  return r;
}

}  // namespace gpuqual
