#pragma once
// The PCIe (and peer copy) checks' pure rules: copy directions and metric names, the GPU's NUMA
// node from sysfs, CPU lists, and the host side of the copy pattern (fill and check).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gpuqual {

enum class CopyDirection { h2d, d2h, bidir };
std::string_view to_string(CopyDirection d);  // h2d, d2h, bidir
std::optional<CopyDirection> parse_copy_direction(std::string_view text);
std::vector<CopyDirection> all_copy_directions();

inline constexpr std::uint64_t kPcieMinBytes = 256ULL << 20;  // the floor: >= 256 MiB per copy

// Bytes one run moves: `bytes` per direction, both directions for bidir.
double copy_bytes_per_op(CopyDirection d, std::uint64_t bytes);

std::string pcie_metric_name(CopyDirection d);      // pcie.h2d.gbps (per GPU)
std::string pcie_all_metric_name(CopyDirection d);  // pcie.all.h2d.gbps (node: every GPU at once)
// Peer copies: p2p.uni.0_1.gbps (from 0 to 1), p2p.bidir.0_1.gbps (both ways at once).
std::string p2p_metric_name(bool bidirectional, int from, int to);

// CUDA's or NVML's PCI bus id ("00000000:19:00.0", "0000:19:00.0") as sysfs names it
// ("0000:19:00.0": 4-digit domain, lower case). nullopt when malformed.
std::optional<std::string> sysfs_pci_address(std::string_view bus_id);

// <sysfs_root>/bus/pci/devices/<address>/numa_node; nullopt when absent, unreadable or -1.
std::optional<int> read_numa_node(const std::string& sysfs_root, const std::string& address);

// "0-3,8,10-11" -> {0,1,2,3,8,10,11}; nullopt when malformed.
std::optional<std::vector<int>> parse_cpu_list(std::string_view text);
// <sysfs_root>/devices/system/node/node<N>/cpulist, parsed.
std::optional<std::vector<int>> read_numa_cpus(const std::string& sysfs_root, int node);

// Host side of kernels::copy_pattern_word: fill, and count words that differ (first index out).
void fill_pattern_host(std::uint64_t* words, std::uint64_t count, std::uint64_t seed);
std::uint64_t count_pattern_mismatches_host(const std::uint64_t* words, std::uint64_t count,
                                            std::uint64_t seed, std::uint64_t* first_bad);

// Ordered pairs (i, j), i != j, of the given GPUs, and the unordered ones (i < j).
std::vector<std::pair<int, int>> ordered_pairs(const std::vector<int>& gpus);
std::vector<std::pair<int, int>> unordered_pairs(const std::vector<int>& gpus);
// The ring over the GPUs in the given order: (g0, g1), (g1, g2), ..., (g[n-1], g0) for one
// direction, and each ring edge once for both directions. n copies instead of n(n-1): on an
// 8-GPU node 16 measurements instead of 84, which keeps the canary's p2p within its budget
// (every GPU still sends and receives once; a slow link on a ring edge shows, one off the ring
// only in the all-pairs set, which `standard` runs). Fewer than 2 GPUs: empty; 2: (a,b), (b,a).
std::vector<std::pair<int, int>> ring_ordered_pairs(const std::vector<int>& gpus);
std::vector<std::pair<int, int>> ring_unordered_pairs(const std::vector<int>& gpus);

}  // namespace gpuqual
