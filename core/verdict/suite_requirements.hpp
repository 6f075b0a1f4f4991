#pragma once
// The checks a shipped suite requires, read from the suite file the record names (`suite`), so
// that compare can tell a record that left a check out (`run --skip health`, `--only gemm`, an
// edited record) from one that ran the suite: a check the suite lists and does not mark
// `optional: true` must be in the record (docs/compare.md, "What earns a PASS"). The file is
// <suites dir>/<suite>.yaml, the suites dir found as `run` finds it ($GPUQUAL_SUITES_DIR, the
// installed share/gpuqual/suites, the source tree's suites/); `nccl-multinode`, the record of
// `gpuqual nccl`, requires its one check, nccl_allreduce. A suite that is neither (a file of the
// user's given by path, a misspelt name) requires what the baseline requires, and, when the
// baseline requires no check, the core checks (compare_requirements.cpp).
#include <array>
#include <optional>
#include <string>
#include <vector>

namespace gpuqual {

// The checks every baseline gpuqual builds or ships requires on every GPU (docs/baselines.md,
// "What a class must measure"): also what a record of a suite gpuqual cannot find must hold when
// its baseline requires no check (docs/compare.md, "What earns a PASS").
inline constexpr std::array<const char*, 4> kCoreChecks{"health", "gemm", "hbm", "pcie"};

struct SuiteRequirement {
  std::string suite;                // the suite's name, as the record has it
  std::string origin;               // the file read
  std::vector<std::string> checks;  // the entries not marked optional, in the file's order
};

// Read once per suite name and process; nullopt when no such suite file exists. A file that is
// there but unreadable as YAML is an InputError naming it.
std::optional<SuiteRequirement> suite_requirement(const std::string& suite_name);
// The same from a given directory (tests; no caching).
std::optional<SuiteRequirement> suite_requirement_in(const std::string& suite_name, const std::string& dir);

}  // namespace gpuqual
