// The suite YAML loader: what a valid suite becomes, and every malformed suite rejected with
// the file, the line and the problem (exit 3 through InputError).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "core/base/input_error.hpp"
#include "suites/check.hpp"
#include "suites/check_catalog.hpp"
#include "suites/suite.hpp"

namespace gpuqual {
namespace {

using ::testing::HasSubstr;

std::string error_of(const std::string& yaml, const SuiteOptions& opts = {}) {
  try {
    parse_suite_yaml(yaml, "my.yaml", opts);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(SuiteLoader, ReadsChecksParamsBudgetsAndDefaults) {
  const Suite s = parse_suite_yaml(R"(# a comment
name: mine
description: two checks
budget_s: 100
checks:
  - check: gemm
    budget_s: 30
    timeout_s: 90
    params:
      sizes: [4096, 8192]
      precisions: [bf16, "fp8_e4m3"]
      verify: true
      label: "123"
      ratio: 0.5
  - check: hbm
)",
                                   "my.yaml");
  EXPECT_EQ(s.name, "mine");
  EXPECT_EQ(s.description, "two checks");
  EXPECT_EQ(s.origin, "my.yaml");
  EXPECT_EQ(s.budget_s, 100);
  EXPECT_FALSE(s.takes_duration);
  ASSERT_EQ(s.checks.size(), 2u);
  EXPECT_EQ(s.checks[0].check, "gemm");
  EXPECT_EQ(s.checks[0].budget_s, 30);
  EXPECT_EQ(s.checks[0].timeout_s, 90);
  EXPECT_EQ(s.checks[0].line, 6);
  EXPECT_EQ(s.checks[0].params,
            nlohmann::json::parse(
                R"({"sizes": [4096, 8192], "precisions": ["bf16", "fp8_e4m3"], "verify": true,
                                        "label": "123", "ratio": 0.5})"));
  EXPECT_EQ(s.checks[1].budget_s, kDefaultBudgetS);
  EXPECT_EQ(s.checks[1].timeout_s, default_timeout_s(kDefaultBudgetS));
  EXPECT_EQ(s.checks[1].params, nlohmann::json::object());
  EXPECT_EQ(s.checks[1].line, 15);
}

TEST(SuiteLoader, DurationIsSubstitutedFromTheFlagOrTheDefault) {
  const std::string yaml = R"(name: b
default_duration: 1h30m
budget_s: "${duration} + 100"
checks:
  - check: burnin
    budget_s: "${duration} + 60"
    timeout_s: "${duration}+600"
    params: {duration_s: "${duration}", nested: [{d: "${duration}"}]}
)";
  Suite s = parse_suite_yaml(yaml, "b.yaml");
  EXPECT_TRUE(s.takes_duration);
  EXPECT_EQ(s.duration_s, 5400);
  EXPECT_EQ(s.budget_s, 5500);
  EXPECT_EQ(s.checks[0].budget_s, 5460);
  EXPECT_EQ(s.checks[0].timeout_s, 6000);
  EXPECT_EQ(s.checks[0].params.at("duration_s"), 5400.0);
  EXPECT_EQ(s.checks[0].params.at("nested")[0].at("d"), 5400.0);
  s = parse_suite_yaml(yaml, "b.yaml", SuiteOptions{10});
  EXPECT_EQ(s.duration_s, 10);
  EXPECT_EQ(s.checks[0].timeout_s, 610);
}

TEST(SuiteLoader, SyntaxErrorsNameTheLine) {
  EXPECT_THAT(error_of("name: x\nchecks:\n  - check: gemm\n    params: {a: [1, 2}\n"),
              HasSubstr("my.yaml: line 4, column"));
  EXPECT_THAT(error_of("name: x\nchecks:\n  - check: gemm\n    params: {a: [1, 2}\n"),
              HasSubstr("YAML syntax error"));
}

struct BadSuite {
  const char* name;  // the test's name
  const char* yaml;
  const char* expected;  // file: line N: path: problem (or a part of it)
};

class SuiteLoaderErrors : public ::testing::TestWithParam<BadSuite> {};

TEST_P(SuiteLoaderErrors, NameFileLineAndProblem) {
  EXPECT_THAT(error_of(GetParam().yaml), HasSubstr(GetParam().expected));
}

INSTANTIATE_TEST_SUITE_P(
    Cases, SuiteLoaderErrors,
    ::testing::Values(
        BadSuite{"MissingName", "checks:\n  - check: gemm\n",
                 "my.yaml: line 1: $.name: required field is missing"},
        BadSuite{"BadName", "name: Bad Name\nchecks:\n  - check: gemm\n",
                 "my.yaml: line 1: $.name: \"Bad Name\" is not a suite name"},
        BadSuite{"MissingChecks", "name: x\n", "$.checks: required field is missing"},
        BadSuite{"EmptyChecks", "name: x\nchecks: []\n",
                 "my.yaml: line 2: $.checks: a suite needs at least one check"},
        BadSuite{"ChecksNotAList", "name: x\nchecks: gemm\n", "my.yaml: line 2: $.checks: expected an array"},
        BadSuite{"CheckNotAMap", "name: x\nchecks:\n  - gemm\n",
                 "my.yaml: line 3: $.checks[0]: expected an object"},
        BadSuite{"UnknownCheck", "name: x\nchecks:\n  - check: gemm\n  - check: gem\n",
                 "my.yaml: line 4: $.checks[1].check: unknown check \"gem\" (gpuqual checks: "},
        BadSuite{"UnknownKey", "name: x\nchecks:\n  - check: gemm\n    timeout: 5\n",
                 "my.yaml: line 4: $.checks[0].timeout: unknown field"},
        BadSuite{"MisspelledChecks", "name: x\ncheks:\n  - check: gemm\n",
                 "$.checks: required field is missing"},
        BadSuite{"DuplicateCheck", "name: x\nchecks:\n  - check: gemm\n  - check: hbm\n  - check: gemm\n",
                 "my.yaml: line 5: $.checks[2].check: check \"gemm\" is listed twice (first as $.checks[0])"},
        BadSuite{"TimeoutBelowBudget",
                 "name: x\nchecks:\n  - check: gemm\n    budget_s: 30\n    timeout_s: 10\n",
                 "my.yaml: line 5: $.checks[0].timeout_s: timeout_s 10 s is shorter than budget_s 30 s"},
        BadSuite{"NegativeBudget", "name: x\nchecks:\n  - check: gemm\n    budget_s: -1\n",
                 "line 4: $.checks[0].budget_s: must be more than 0 s"},
        BadSuite{"BudgetAsString", "name: x\nchecks:\n  - check: gemm\n    budget_s: \"30\"\n",
                 "line 4: $.checks[0].budget_s: expected seconds or \"${duration} + N\", found \"30\""},
        BadSuite{"NanBudget", "name: x\nchecks:\n  - check: gemm\n    budget_s: .nan\n",
                 "line 4: $.checks[0].budget_s: number is not finite"},
        BadSuite{"ParamsNotAMap", "name: x\nchecks:\n  - check: gemm\n    params: [1]\n",
                 "line 4: $.checks[0].params: expected an object"},
        BadSuite{"BudgetsOverSuiteBudget",
                 "name: x\nbudget_s: 50\nchecks:\n  - check: gemm\n    budget_s: 30\n  - check: hbm\n    "
                 "budget_s: 30\n",
                 "my.yaml: line 2: $.budget_s: the checks' budgets add up to 60 s, over the suite's budget_s "
                 "of 50 s"},
        BadSuite{"DurationWithoutDefault",
                 "name: x\nchecks:\n  - check: burnin\n    params: {d: \"${duration}\"}\n",
                 "line 1: $.default_duration: the suite uses ${duration} but has no default_duration"},
        BadSuite{"DefaultDurationUnused", "name: x\ndefault_duration: 1h\nchecks:\n  - check: gemm\n",
                 "line 2: $.default_duration: default_duration is set but no value uses ${duration}"},
        BadSuite{
            "BadDefaultDuration",
            "name: x\ndefault_duration: soon\nchecks:\n  - check: burnin\n    budget_s: \"${duration}\"\n",
            "line 2: $.default_duration: \"soon\" is not a duration"},
        BadSuite{
            "DurationNotWhole",
            "name: x\ndefault_duration: 1h\nchecks:\n  - check: burnin\n    params: {d: \"${duration}s\"}\n",
            "line 5: $.checks[0].params.d: \"${duration}s\": the only variable is ${duration}"},
        BadSuite{"OtherVariable", "name: x\nchecks:\n  - check: gemm\n    params: {image: \"${IMAGE}\"}\n",
                 "line 4: $.checks[0].params.image: \"${IMAGE}\": the only variable is ${duration}"},
        BadSuite{"DuplicateKey", "name: x\nname: y\nchecks:\n  - check: gemm\n",
                 "my.yaml: line 2, column 1: duplicate key \"name\""},
        BadSuite{"TwoDocuments", "name: x\n---\nname: y\n", "more than one YAML document"},
        BadSuite{"OnlyAComment", "# only a comment\n", "my.yaml: no YAML content"}),
    [](const ::testing::TestParamInfo<BadSuite>& info) { return std::string(info.param.name); });

TEST(SuiteLoader, DurationFlagForASuiteWithoutDurationIsAnError) {
  EXPECT_THAT(error_of("name: x\nchecks:\n  - check: gemm\n", SuiteOptions{60}),
              HasSubstr("my.yaml: --duration was given, but suite \"x\" uses no ${duration}"));
}

TEST(SuiteLoader, MissingAndEmptyFiles) {
  try {
    load_suite("/nonexistent/suite.yaml");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_THAT(e.what(), HasSubstr("/nonexistent/suite.yaml: cannot open"));
  }
  const std::string empty = ::testing::TempDir() + "/empty-suite.yaml";
  std::ofstream(empty) << "\n";
  try {
    load_suite(empty);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_THAT(e.what(), HasSubstr("file is empty"));
  }
}

// The suites gpuqual ships: they load, name only the project's checks (never a test-only one),
// and keep the budgets the issues promise.
class ShippedSuites : public ::testing::Test {
 protected:
  static Suite load(const std::string& name, SuiteOptions opts = {}) {
    return load_suite(std::string(GPUQUAL_SOURCE_DIR) + "/suites/" + name + ".yaml", opts);
  }
};

TEST_F(ShippedSuites, EveryShippedSuiteLoadsAndNamesOnlyProjectChecks) {
  for (const char* name : {"smoke", "canary", "standard", "burnin"}) {
    const Suite s = load(name);
    EXPECT_EQ(s.name, name);
    EXPECT_FALSE(s.description.empty()) << name;
    ASSERT_TRUE(s.budget_s) << name;
    for (const auto& c : s.checks) {
      EXPECT_TRUE(in_check_catalog(c.check)) << name << ": " << c.check;
      const CheckInfo* info = CheckRegistry::instance().find(c.check);
      EXPECT_TRUE(!info || !info->test_only) << name << ": " << c.check;
    }
  }
}

TEST_F(ShippedSuites, BudgetsFitTheirPromises) {
  EXPECT_LE(*load("smoke").budget_s, 60);
  const Suite canary = load("canary");
  EXPECT_LE(*canary.budget_s, 300);
  double micro = 0, gpu = 0, platform = 0;
  for (const auto& c : canary.checks) {
    if (c.check == "stack") continue;  // reads the host's files, no GPU time
    if (c.check == "mig" || c.check == "gpu_sharing" || c.check == "dra")
      continue;  // labels, configs, API objects
    if (c.check == "gemm" || c.check == "hbm" || c.check == "pcie") micro += c.budget_s;
    const bool is_platform = c.check == "telemetry" || c.check == "storage" || c.check == "network";
    (is_platform ? platform : gpu) += c.budget_s;
  }
  EXPECT_LE(micro, 45);     // gemm + hbm + pcie in the canary <= 45 s
  EXPECT_LE(gpu, 90);       // the 8-GPU canary's GPU checks <= 90 s
  EXPECT_LE(platform, 10);  // telemetry, storage and network add at most 10 s
  // Each platform check's own overall bound is under its watchdog timeout, so what hangs is
  // named by the check, not cut off by the runner.
  for (const auto& c : canary.checks) {
    if (c.params.contains("total_timeout_s")) {
      EXPECT_LT(c.params.at("total_timeout_s").get<double>(), c.timeout_s) << c.check;
    }
  }
  const Suite burnin = load("burnin", SuiteOptions{7200});
  EXPECT_TRUE(burnin.takes_duration);
  for (const auto& c : burnin.checks) {
    if (c.check == "burnin") {
      EXPECT_EQ(c.params.at("duration_s"), 7200.0);
      EXPECT_GT(c.timeout_s, 7200);
    }
  }
}

}  // namespace
}  // namespace gpuqual
