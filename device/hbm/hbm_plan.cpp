#include "device/hbm/hbm_plan.hpp"

#include <algorithm>
#include <set>
#include <sstream>
#include <stdexcept>

#include "kernels/seeded_hash.cuh"

namespace gpuqual {

std::string_view to_string(StreamKernel k) {
  switch (k) {
    case StreamKernel::copy:
      return "copy";
    case StreamKernel::scale:
      return "scale";
    case StreamKernel::add:
      return "add";
    case StreamKernel::triad:
      return "triad";
    case StreamKernel::read:
      return "read";
    case StreamKernel::write:
      return "write";
  }
  return "?";
}

std::optional<StreamKernel> parse_stream_kernel(std::string_view text) {
  for (auto k : all_stream_kernels()) {
    if (text == to_string(k)) return k;
  }
  return std::nullopt;
}

std::vector<StreamKernel> all_stream_kernels() {
  return {StreamKernel::copy,  StreamKernel::scale, StreamKernel::add,
          StreamKernel::triad, StreamKernel::read,  StreamKernel::write};
}

HbmArrayPlan plan_hbm_arrays(std::uint64_t l2_bytes, std::uint64_t memory_bytes,
                             std::uint64_t requested_bytes) {
  constexpr std::uint64_t kGranule = 1ULL << 20;
  const std::uint64_t floor_bytes = 4 * l2_bytes;
  HbmArrayPlan plan;
  std::uint64_t bytes = requested_bytes == 0 ? std::max(floor_bytes, kHbmMinArrayBytes) : requested_bytes;
  std::ostringstream note;
  if (bytes < floor_bytes) {
    note << "array size raised from " << bytes << " to 4 x L2 = " << floor_bytes << " bytes";
    bytes = floor_bytes;
  }
  const std::uint64_t cap = std::min(kHbmMaxArrayBytes, memory_bytes / 8);
  if (bytes > cap) {
    if (cap < floor_bytes) {
      throw std::invalid_argument("GPU memory (" + std::to_string(memory_bytes) +
                                  " bytes) cannot hold three arrays of 4 x L2 (" +
                                  std::to_string(floor_bytes) + " bytes each)");
    }
    if (note.tellp() > 0) note << "; ";
    note << "array size lowered from " << bytes << " to " << cap << " bytes (8 GiB or 1/8 of GPU memory)";
    bytes = cap;
  }
  bytes = std::max(kGranule, (bytes + kGranule - 1) / kGranule * kGranule);
  if (bytes > cap) bytes = cap / kGranule * kGranule;
  plan.bytes = bytes;
  plan.elements = bytes / sizeof(double);
  plan.note = note.str();
  return plan;
}

double hbm_bytes_per_op(StreamKernel k, std::uint64_t n) {
  return static_cast<double>(kernels::stream_bytes_per_element(k)) * static_cast<double>(n);
}

std::string hbm_metric_name(StreamKernel k) { return "hbm." + std::string(to_string(k)) + ".gbps"; }

kernels::StreamScalars hbm_scalars(std::uint64_t seed) {
  kernels::StreamScalars sc;
  sc.s = 0.4;  // BabelStream's scalar
  sc.w0 = kernels::stream_init_value(seed, 2, 0);
  sc.w1 = kernels::stream_init_value(seed, 3, 0) * (1.0 / 1073741824.0);  // ~1e-9: values stay O(1)
  return sc;
}

std::vector<std::uint64_t> hbm_sample_indices(std::uint64_t n, int count, std::uint64_t seed) {
  std::vector<std::uint64_t> out;
  if (n == 0 || count <= 0) return out;
  std::set<std::uint64_t> seen;
  auto add = [&](std::uint64_t i) {
    if (seen.insert(i).second) out.push_back(i);
  };
  add(0);
  add(n - 1);
  const auto wanted = static_cast<std::size_t>(std::min<std::uint64_t>(std::max(count, 2), n));
  for (std::uint64_t j = 0; out.size() < wanted; ++j) add(kernels::seeded_hash(seed, 0x696478ULL, j) % n);
  return out;
}

HbmReplay replay_stream_samples(StreamKernel k, std::uint64_t seed, kernels::StreamScalars sc,
                                const std::vector<std::uint64_t>& indices, const std::vector<double>& d_got) {
  if (indices.size() != d_got.size()) throw std::invalid_argument("replay_stream_samples: sizes differ");
  HbmReplay r;
  for (std::size_t j = 0; j < indices.size(); ++j) {
    const std::uint64_t i = indices[j];
    bool has_output = false;
    const double a = kernels::stream_init_value(seed, 0, i), b = kernels::stream_init_value(seed, 1, i);
    const double expected = kernels::stream_expected_output(k, a, b, i, sc, &has_output);
    if (!has_output) continue;
    ++r.checked;
    if (d_got[j] != expected) {  // exact: one correctly rounded IEEE operation per element
      if (r.wrong == 0) {
        std::ostringstream w;
        w.precision(17);
        w << "d[" << i << "] = " << d_got[j] << " expected " << expected;
        r.first_wrong = w.str();
      }
      ++r.wrong;
    }
  }
  return r;
}

double stream_expected_sum_host(std::uint64_t seed, std::uint64_t n) {
  double sum = 0;
  for (std::uint64_t i = 0; i < n; ++i) sum += kernels::stream_init_value(seed, 0, i);
  return sum;
}

}  // namespace gpuqual
