#include "device/nccl_allreduce/nccl_allreduce_plan.hpp"

#include <charconv>
#include <limits>

namespace gpuqual {

namespace {

struct Unit {
  std::string_view short_name, long_name;
  int shift;
};
constexpr Unit kUnits[] = {{"G", "GiB", 30}, {"M", "MiB", 20}, {"K", "KiB", 10}, {"", "B", 0}};

}  // namespace

std::optional<std::uint64_t> parse_size_bytes(std::string_view text) {
  std::uint64_t value = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || ptr == text.data()) return std::nullopt;
  std::string suffix(ptr, static_cast<std::size_t>(end - ptr));
  // "8k" as "8K" (nccl-tests accepts both); never "b" for bytes, which reads as bits.
  if (suffix == "k" || suffix == "m" || suffix == "g") suffix[0] = static_cast<char>(suffix[0] - 'a' + 'A');
  for (const Unit& u : kUnits) {
    if (suffix == u.short_name || suffix == u.long_name) {
      if (u.shift > 0 && value > (std::numeric_limits<std::uint64_t>::max() >> u.shift)) return std::nullopt;
      return value << u.shift;
    }
  }
  return std::nullopt;
}

std::string size_label(std::uint64_t bytes) {
  for (const Unit& u : kUnits) {
    const std::uint64_t unit = std::uint64_t{1} << u.shift;
    if (u.shift > 0 && bytes >= unit && bytes % unit == 0)
      return std::to_string(bytes >> u.shift) + std::string(u.long_name);
  }
  return std::to_string(bytes) + "B";
}

std::optional<ReduceType> parse_reduce_type(std::string_view text) {
  if (text == "float" || text == "fp32" || text == "float32") return ReduceType::f32;
  if (text == "bf16" || text == "bfloat16") return ReduceType::bf16;
  return std::nullopt;
}

std::string_view reduce_type_name(ReduceType type) { return type == ReduceType::f32 ? "float" : "bf16"; }

std::size_t reduce_type_bytes(ReduceType type) { return type == ReduceType::f32 ? 4 : 2; }

double allreduce_bus_factor(int nranks) {
  if (nranks < 2) return 0;
  return 2.0 * (nranks - 1) / nranks;
}

double algbw_gbps(double bytes, double seconds) { return bytes / seconds / 1e9; }

double busbw_gbps(double bytes, double seconds, int nranks) {
  return algbw_gbps(bytes, seconds) * allreduce_bus_factor(nranks);
}

std::string allreduce_metric_prefix(const AllreduceItem& item) {
  return "nccl.allreduce." + std::string(reduce_type_name(item.type)) + "." + size_label(item.bytes) +
         (item.in_place ? ".inplace" : "");
}

std::string allreduce_item_label(const AllreduceItem& item) {
  return std::string(reduce_type_name(item.type)) + " " + size_label(item.bytes) +
         (item.in_place ? " in-place" : " out-of-place");
}

std::vector<AllreduceItem> plan_allreduce(const std::vector<ReduceType>& types,
                                          const std::vector<bool>& in_place,
                                          const std::vector<std::uint64_t>& sizes) {
  std::vector<AllreduceItem> items;
  for (ReduceType t : types) {
    for (bool ip : in_place) {
      for (std::uint64_t b : sizes) items.push_back(AllreduceItem{t, b, ip});
    }
  }
  return items;
}

AllreduceTiming allreduce_timing(std::uint64_t bytes, bool graph_failed) {
  return bytes <= kAllreduceGraphMaxBytes && !graph_failed ? AllreduceTiming::graph : AllreduceTiming::eager;
}

int allreduce_runs_per_batch(AllreduceTiming timing, int reps) {
  return timing == AllreduceTiming::graph ? 1 : reps;
}

std::string_view to_string(AllreduceTiming t) { return t == AllreduceTiming::graph ? "graph" : "eager"; }

}  // namespace gpuqual
