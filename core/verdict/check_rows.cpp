#include "core/verdict/check_rows.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <set>
#include <string>

#include "core/record/record_lookup.hpp"
#include "core/verdict/skip_acceptance.hpp"

namespace gpuqual {

namespace {

// A skip's row: accepted when optional or not applicable (a code that holds for the record);
// the reason says which, or why the code does not hold.
void judge_skip(const RunRecord& r, const CheckResult& c, CheckRow& row) {
  const std::string code = recorded_reason_code(c, row.gpu, row.mig_device);
  row.skip_accepted = skip_is_acceptable(r, c, row.gpu, code, false);
  if (code.empty()) {
    if (c.optional) row.reason = "optional check: " + row.reason;
    return;
  }
  if (auto refused = not_applicable_refusal(r, c, code, row.gpu)) {
    row.reason = fmt::format("{}{} (not accepted as not applicable: {})",
                             c.optional ? "optional check: " : "", row.reason, *refused);
  } else {
    row.reason = fmt::format("not applicable ({}): {}", code, row.reason);
  }
}

using RowScope = std::pair<int, std::string>;  // (GPU, MIG device or "")

// The scopes a check has rows for: the node (none, or the check's own skip), and each GPU, or each
// MIG device of a GPU, that its statuses, judged metrics or findings name.
std::vector<std::optional<RowScope>> row_scopes(const CheckResult& c, const Verdict& v,
                                                bool skipped_metrics_place_gpu) {
  std::set<RowScope> scopes;
  bool node = false;
  auto touch = [&](const std::optional<int>& gpu, const std::string& mig) {
    if (gpu) {
      scopes.emplace(*gpu, mig);
    } else {
      node = true;
    }
  };
  for (const auto& g : c.per_gpu) scopes.emplace(g.gpu, g.mig_device);
  for (const auto& m : v.metrics) {
    if (m.check == c.name && (skipped_metrics_place_gpu || m.status != Status::skip))
      touch(m.gpu, m.mig_device);
  }
  for (const auto& f : v.findings) {
    if (f.check == c.name) touch(f.finding.gpu, f.finding.mig_device);
  }
  // The check's own skip when each of its GPUs has a status and none skipped (the writers roll a
  // check's status up from its GPUs', so only an edited record has one) is a row of its own: the
  // verdict takes a skip only from a row, never from the record's statuses as it takes fail,
  // error and warn (docs/compare.md, "What earns a PASS": no check failed, errored or skipped).
  const bool own_skip = c.status == Status::skip && !c.per_gpu.empty() &&
                        std::none_of(c.per_gpu.begin(), c.per_gpu.end(),
                                     [](const auto& g) { return g.status == Status::skip; });
  std::vector<std::optional<RowScope>> out;
  if (scopes.empty() || node || own_skip) out.emplace_back(std::nullopt);
  for (const RowScope& s : scopes) out.emplace_back(s);
  return out;
}

}  // namespace

std::vector<CheckRow> check_rows(const RunRecord& r, const CheckResult& c, const Verdict& v,
                                 bool skipped_metrics_place_gpu) {
  std::vector<CheckRow> rows;
  for (const auto& scope : row_scopes(c, v, skipped_metrics_place_gpu)) {
    const std::optional<int> gpu = scope ? std::optional<int>(scope->first) : std::nullopt;
    const std::string mig = scope ? scope->second : "";
    auto [status, reason] = recorded_status(c, gpu, mig);
    CheckRow row{c.name, gpu, status, status == Status::pass ? "" : reason, c.duration_s, false, mig};
    if (status == Status::skip) judge_skip(r, c, row);
    // Only a worse status takes over the row, and only then is its reason text made.
    auto takes_over = [&](Status s) {
      return s != Status::skip && severity_rank(s) > severity_rank(row.status);
    };
    auto fold = [&](Status s, const std::string& what, const std::string& why) {
      row.status = s;
      row.reason = fmt::format("{}: {}", what, why);
      row.skip_accepted = false;
    };
    // The cheap tests first: a string compare for every metric of every scope was ~2 % of matrix build.
    for (const auto& m : v.metrics) {
      if (takes_over(m.status) && m.gpu == gpu && m.check == c.name && m.mig_device == mig)
        fold(m.status, m.metric, m.reason);
    }
    for (const auto& f : v.findings) {
      if (takes_over(f.status) && f.finding.gpu == gpu && f.check == c.name && f.finding.mig_device == mig)
        fold(f.status, f.finding.code, f.reason);
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace gpuqual
