#pragma once
// What the all-reduce check measures, and the arithmetic of what it reports: message sizes
// ("64M", "2GiB", "8K"), their labels in metric names, the data types, and nccl-tests'
// bandwidth convention (https://github.com/NVIDIA/nccl-tests/blob/master/doc/PERFORMANCE.md):
//   algbw = bytes / time;  busbw = algbw x 2(n-1)/n  for n ranks.
// Metrics are per size (nccl.allreduce.float.512MiB.busbw_gbps), never an average of a sweep.
// Plain C++: no CUDA, no NCCL, so CPU tests check all of it.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kernels/nccl_pattern.cuh"

namespace gpuqual {

using kernels::ReduceType;

// "8K", "8KiB", "64M", "64MiB", "2G", "2GiB" (binary units, as nccl-tests' -b/-e), "4096" or
// "4096B" (bytes). Empty when the text is not a size or the value overflows.
std::optional<std::uint64_t> parse_size_bytes(std::string_view text);

// The label a size carries in metric names: the largest binary unit that divides it exactly
// ("8KiB", "512MiB", "2GiB", "1536KiB"), else bytes ("1000B").
std::string size_label(std::uint64_t bytes);

// "float" (also "fp32", "float32") and "bf16" (also "bfloat16").
std::optional<ReduceType> parse_reduce_type(std::string_view text);
std::string_view reduce_type_name(ReduceType type);  // "float", "bf16"
std::size_t reduce_type_bytes(ReduceType type);      // 4, 2

// 2(n-1)/n: the share of the data each rank must send and receive in an all-reduce. 0 for n < 2.
double allreduce_bus_factor(int nranks);
double algbw_gbps(double bytes, double seconds);  // 1e9 bytes per second
double busbw_gbps(double bytes, double seconds, int nranks);

// One measurement: a data type, a size, in-place (send buffer = receive buffer) or not.
struct AllreduceItem {
  ReduceType type = ReduceType::f32;
  std::uint64_t bytes = 0;
  bool in_place = false;
  std::uint64_t count() const { return bytes / reduce_type_bytes(type); }
};

// "nccl.allreduce.float.512MiB" (out-of-place) or "nccl.allreduce.float.512MiB.inplace".
std::string allreduce_metric_prefix(const AllreduceItem& item);
// "float 512MiB out-of-place": how reasons and findings name the item.
std::string allreduce_item_label(const AllreduceItem& item);

// How the repetitions of one sample are timed. Non-blocking communicators (nccl_local_comms.hpp)
// run each group call's enqueue on a host thread, which costs ~10-20 us: a small message (8 KiB
// moves in ~1 us over NVLink) would measure that host overhead. So messages up to
// kAllreduceGraphMaxBytes are captured once as a CUDA graph of `reps` all-reduces and the graph
// is launched between the events (what nccl-tests does with -G); larger ones, where the launch
// is a small share of the transfer (64 MiB: ~150 us), are enqueued eagerly. `graph_failed`:
// capturing failed on this node once, so the item falls back to eager (and says so).
enum class AllreduceTiming { eager, graph };
inline constexpr std::uint64_t kAllreduceGraphMaxBytes = 16ULL << 20;
AllreduceTiming allreduce_timing(std::uint64_t bytes, bool graph_failed);
// Runs of one timed batch of `reps` all-reduces: the graph holds all of them (1 launch), eager
// enqueues each (reps). The timer adds one untimed run of the same kind before the start event.
int allreduce_runs_per_batch(AllreduceTiming timing, int reps);
std::string_view to_string(AllreduceTiming t);  // "eager", "graph"

// Every (type, placement, size), in that nesting order, sizes ascending as given.
std::vector<AllreduceItem> plan_allreduce(const std::vector<ReduceType>& types,
                                          const std::vector<bool>& in_place,
                                          const std::vector<std::uint64_t>& sizes);

}  // namespace gpuqual
