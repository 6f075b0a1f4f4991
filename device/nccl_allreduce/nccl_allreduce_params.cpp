#include "device/nccl_allreduce/nccl_allreduce_params.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "core/base/json_fields.hpp"

namespace gpuqual {

namespace {

std::vector<std::uint64_t> read_sizes(JsonObject& o) {
  const nlohmann::json* arr = o.opt_array("sizes");
  if (!arr)
    return {std::uint64_t{8} << 10, std::uint64_t{64} << 20, std::uint64_t{512} << 20,
            std::uint64_t{2} << 30};
  if (arr->empty()) o.fail("sizes", "must list at least one size");
  std::vector<std::uint64_t> sizes;
  std::set<std::string> labels;
  for (std::size_t i = 0; i < arr->size(); ++i) {
    const auto& v = (*arr)[i];
    const std::string where = fmt::format("sizes[{}]", i);
    std::optional<std::uint64_t> bytes;
    if (v.is_number_integer()) {  // signed or unsigned, as YAML and JSON readers give it
      if (v.get<std::int64_t>() <= 0 && !v.is_number_unsigned())
        o.fail(where, "must be a positive byte count");
      bytes = v.get<std::uint64_t>();
    } else if (v.is_string()) {
      bytes = parse_size_bytes(v.get<std::string>());
      if (!bytes)
        o.fail(where,
               fmt::format("\"{}\" is not a size (e.g. 8K, 64M, 2G, 512MiB, 4096)", v.get<std::string>()));
    } else {
      o.fail(where, "expected a size such as \"64MiB\" or a byte count");
    }
    if (*bytes == 0 || *bytes % 4 != 0)
      o.fail(where, fmt::format("{} bytes: must be a positive multiple of 4", *bytes));
    if (*bytes > kAllreduceMaxBytes)
      o.fail(where, fmt::format("{} is larger than 64GiB", size_label(*bytes)));
    if (!labels.insert(size_label(*bytes)).second)
      o.fail(where, fmt::format("{} is listed twice", size_label(*bytes)));
    sizes.push_back(*bytes);
  }
  return sizes;
}

std::vector<ReduceType> read_types(JsonObject& o) {
  const nlohmann::json* arr = o.opt_array("dtypes");
  if (!arr) return {ReduceType::f32, ReduceType::bf16};
  if (arr->empty()) o.fail("dtypes", "must list at least one data type");
  std::vector<ReduceType> types;
  for (std::size_t i = 0; i < arr->size(); ++i) {
    const auto& v = (*arr)[i];
    const std::string where = fmt::format("dtypes[{}]", i);
    const auto t = v.is_string() ? parse_reduce_type(v.get<std::string>()) : std::nullopt;
    if (!t) o.fail(where, "expected \"float\" or \"bf16\"");
    if (std::find(types.begin(), types.end(), *t) != types.end()) o.fail(where, "listed twice");
    types.push_back(*t);
  }
  return types;
}

std::vector<bool> read_placements(JsonObject& o) {
  const nlohmann::json* arr = o.opt_array("placements");
  if (!arr) return {false, true};
  if (arr->empty()) o.fail("placements", "must list out_of_place, in_place or both");
  std::vector<bool> out;
  for (std::size_t i = 0; i < arr->size(); ++i) {
    const auto& v = (*arr)[i];
    const std::string where = fmt::format("placements[{}]", i);
    const std::string s = v.is_string() ? v.get<std::string>() : "";
    if (s != "out_of_place" && s != "in_place") o.fail(where, "expected \"out_of_place\" or \"in_place\"");
    const bool ip = s == "in_place";
    if (std::find(out.begin(), out.end(), ip) != out.end()) o.fail(where, "listed twice");
    out.push_back(ip);
  }
  return out;
}

}  // namespace

std::uint64_t AllreduceParams::max_bytes() const {
  return sizes.empty() ? 0 : *std::max_element(sizes.begin(), sizes.end());
}

AllreduceParams read_allreduce_params(const nlohmann::json& params, const std::string& file) {
  JsonObject o(params, file, "$.params");
  AllreduceParams p;
  p.sizes = read_sizes(o);
  p.types = read_types(o);
  p.in_place = read_placements(o);
  if (auto v = o.opt_integer("check_iters", 1, 1000)) p.check_iters = static_cast<int>(*v);
  if (auto v = o.opt_number("timeout_s", 0.1, 3600)) p.timeout_s = *v;
  MeasureConfig defaults;
  defaults.min_sample_s = 0.005;
  p.common = read_common_bench_params(o, defaults);
  o.finish();
  return p;
}

}  // namespace gpuqual
