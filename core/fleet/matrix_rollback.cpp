#include "core/fleet/matrix_rollback.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/base/utc_time.hpp"
#include "core/fleet/matrix_check.hpp"

namespace gpuqual {

namespace {

// The longest text every comma-separated value starts with ("96.00.99.00.01,96.00.99.00.02" →
// "96.00.99.00.0"); "" when they share nothing.
std::string common_prefix(const std::string& joined) {
  std::vector<std::string> values;
  std::size_t from = 0;
  for (;;) {
    const std::size_t comma = joined.find(',', from);
    values.push_back(joined.substr(from, comma == std::string::npos ? std::string::npos : comma - from));
    if (comma == std::string::npos) break;
    from = comma + 1;
  }
  std::string prefix = values.front();
  for (const auto& v : values) {
    std::size_t n = 0;
    while (n < prefix.size() && n < v.size() && prefix[n] == v[n]) ++n;
    prefix.resize(n);
  }
  return prefix;
}

// The row's stack as rules: every component exact, one it does not state absent (so the target
// never matches a row that adds, say, a Kubernetes version). A VBIOS that differs among the
// class's GPUs cannot be one exact value: it is pinned by the prefix its values share.
Rollback target_of(const MatrixRow& row, const std::string& cls) {
  Rollback out;
  out.row = &row;
  auto& rules = out.target.classes[cls];
  for (const auto& [name, value] : row.stack) {
    if (name == "vbios" && value.find(',') != std::string::npos) {
      const std::string prefix = common_prefix(value);
      if (prefix.empty()) {
        out.comment.push_back(fmt::format("vbios not pinned: the class's GPUs ran {}", value));
        continue;
      }
      rules[name] = ComponentRule{TargetMatch::prefix, prefix};
      out.comment.push_back(
          fmt::format("vbios pinned by the prefix \"{}\" its GPUs' {} share", prefix, value));
      continue;
    }
    rules[name] = ComponentRule{TargetMatch::exact, value};
  }
  std::vector<std::string> absent;
  for (std::string_view name : matrix_component_names()) {
    if (row.component(std::string(name))) continue;
    rules[std::string(name)] = ComponentRule{TargetMatch::absent, ""};
    absent.emplace_back(name);
  }
  if (!absent.empty())
    out.comment.push_back(
        fmt::format("absent (the row's records do not state them): {}", fmt::join(absent, ", ")));
  return out;
}

// A row of the class other than a known-good one that the target also matches: `matrix check`
// of the target would say so (a known-bad row outranks the known-good one), so the target does
// not check known-good.
const MatrixRow* spoiler(const Matrix& m, const std::string& cls, const Rollback& rb) {
  const auto rules = rb.target.rules_for(cls);
  if (!row_on_target(*rb.row, rules)) return rb.row;
  for (const auto& r : m.rows) {
    if (r.hardware_class == cls && r.state == MatrixState::known_bad && row_on_target(r, rules)) return &r;
  }
  return nullptr;
}

}  // namespace

std::optional<Rollback> rollback_for(const Matrix& m, const std::string& cls) {
  std::vector<std::pair<std::optional<std::int64_t>, const MatrixRow*>> good;
  for (const auto& r : m.rows) {
    if (r.hardware_class == cls && r.state == MatrixState::known_good)
      good.emplace_back(parse_rfc3339_ms(r.last_seen), &r);
  }
  // Newest last-seen first; rows are sorted, so a tie keeps the matrix's order: the same answer
  // every time.
  std::stable_sort(good.begin(), good.end(), [](const auto& x, const auto& y) { return x.first > y.first; });
  std::vector<std::string> passed_over;
  for (const auto& [ms, row] : good) {
    Rollback rb = target_of(*row, cls);
    if (const MatrixRow* bad = spoiler(m, cls, rb)) {
      passed_over.push_back(
          fmt::format("a newer known-good row (last seen {}), whose target also matches the {} "
                      "row {}",
                      row->last_seen, to_string(bad->state), bad->why));
      continue;
    }
    std::vector<std::string> comment{
        fmt::format("gpuqual matrix rollback --class {}: the newest known-good stack of the class whose "
                    "target checks known-good",
                    cls),
        fmt::format("from {}: {}; last seen {}", m.origin.empty() ? "the matrix" : m.origin, row->why,
                    row->last_seen.empty() ? "(unknown)" : row->last_seen)};
    for (const auto& why : passed_over) comment.push_back("passed over " + why);
    comment.insert(comment.end(), rb.comment.begin(), rb.comment.end());
    if (!row->images.empty())
      comment.push_back(fmt::format("validated images: {}", fmt::join(row->images, ", ")));
    rb.comment = std::move(comment);
    return rb;
  }
  return std::nullopt;
}

}  // namespace gpuqual
