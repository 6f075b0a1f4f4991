// The compatibility preflight's parsers and rules: driver/CUDA version strings, the
// NVIDIA_REQUIRE_CUDA grammar over the real strings of NVIDIA's CUDA images
// (tests/data/compat/*.env), the shipped table (baselines/cuda-compat.yaml) and the rules that
// decide (full, minor-version, forward compatibility, too old).
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "core/base/dotted_version.hpp"
#include "core/base/input_error.hpp"
#include "core/compat/cuda_compat.hpp"
#include "core/compat/cuda_compat_image.hpp"
#include "core/compat/cuda_compat_require.hpp"

using namespace gpuqual;

namespace {

const CudaCompatTable& table() {
  static const CudaCompatTable t =
      load_cuda_compat_table(std::string(GPUQUAL_SOURCE_DIR) + "/baselines/cuda-compat.yaml");
  return t;
}

std::vector<std::string> image_env(const std::string& version) {
  std::ifstream in(std::string(GPUQUAL_TEST_DATA) + "/compat/nvidia-cuda-" + version + ".env");
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  EXPECT_FALSE(lines.empty()) << version;
  return lines;
}

DottedVersion v(const char* s) { return *DottedVersion::parse(s); }

HostDriver host(const char* driver, const char* cuda) {
  HostDriver h;
  if (driver) {
    h.driver = parse_driver_version(driver);
    h.driver_text = driver;
  }
  if (cuda) h.cuda = DottedVersion::parse(cuda);
  return h;
}

RequireFacts gpu(const char* driver, const char* cuda, const char* brand, const char* arch = "9.0") {
  RequireFacts f;
  f.driver = parse_driver_version(driver);
  f.cuda = DottedVersion::parse(cuda);
  f.brand = brand;
  f.arch = DottedVersion::parse(arch);
  return f;
}

}  // namespace

TEST(CompatVersions, DottedComparisonTreatsMissingPartsAsZero) {
  EXPECT_EQ(v("12.4"), v("12.4.0"));
  EXPECT_LT(v("12.4"), v("12.4.1"));
  EXPECT_LT(v("9.2"), v("12.0"));
  EXPECT_GT(v("580.95.05"), v("580.82.07"));
  EXPECT_EQ(v("580.95.05").str(), "580.95.5");
  EXPECT_FALSE(DottedVersion::parse(""));
  EXPECT_FALSE(DottedVersion::parse("12."));
  EXPECT_FALSE(DottedVersion::parse("v12.4"));
  EXPECT_FALSE(DottedVersion::parse("12.4-1"));
  EXPECT_EQ(DottedVersion::from_cuda_int(12080), v("12.8"));
  EXPECT_EQ(DottedVersion::from_cuda_int(13000), v("13.0"));
  EXPECT_FALSE(DottedVersion::from_cuda_int(0));  // cudaDriverGetVersion without a driver
}

TEST(CompatVersions, DriverVersionStrings) {
  EXPECT_EQ(parse_driver_version("580.95.05"), v("580.95.5"));
  EXPECT_EQ(parse_driver_version("570.26"), v("570.26"));
  EXPECT_EQ(parse_driver_version("450.80.02"), v("450.80.2"));
  EXPECT_FALSE(parse_driver_version("13.0"));  // a CUDA version, not a driver
  EXPECT_FALSE(parse_driver_version("580"));   // branch only
  EXPECT_FALSE(parse_driver_version("580.95.05.1"));
  EXPECT_FALSE(parse_driver_version("580.95.05 "));
}

TEST(NvidiaRequire, ParsesEveryRealImageString) {
  for (const char* tag : {"11.8.0", "12.2.2", "12.4.1", "12.6.3", "12.8.1", "12.9.1", "13.0.0"}) {
    ImageCudaEnv env = parse_image_cuda_env(image_env(tag));
    EXPECT_EQ(env.cuda_version, tag);
    ASSERT_EQ(env.requirements.size(), 1u) << tag;
    EXPECT_EQ(env.requirements[0].first, "NVIDIA_REQUIRE_CUDA");
    EXPECT_FALSE(env.legacy);
    RequireExpression e = parse_nvidia_require(env.requirements[0].second, tag);
    EXPECT_EQ(e.terms.front().text, "cuda>=" + v(tag).major_minor().str()) << tag;
    for (std::size_t i = 1; i < e.terms.size(); ++i) {
      ASSERT_EQ(e.terms[i].conditions.size(), 3u) << tag << " term " << i;
      EXPECT_EQ(e.terms[i].conditions[0].property, "brand");
      EXPECT_EQ(e.terms[i].conditions[1].op, RequireOp::ge);
      EXPECT_EQ(e.terms[i].conditions[2].op, RequireOp::lt);
    }
  }
  // 13.0.0: 12 brands x 5 branches (r535 r550 r565 r570 r575) + the cuda term.
  EXPECT_EQ(parse_nvidia_require(parse_image_cuda_env(image_env("13.0.0")).requirements[0].second, "13")
                .terms.size(),
            61u);
  // 11.8.0 after the November 2023 re-push: 10 brands x r470 only.
  EXPECT_EQ(parse_nvidia_require(parse_image_cuda_env(image_env("11.8.0")).requirements[0].second, "11")
                .terms.size(),
            11u);
}

TEST(NvidiaRequire, MalformedExpressionsNameTermAndCondition) {
  auto expect_error = [](const char* text, const char* where) {
    try {
      parse_nvidia_require(text, "image x env NVIDIA_REQUIRE_CUDA");
      ADD_FAILURE() << text;
    } catch (const InputError& e) {
      EXPECT_EQ(e.file(), "image x env NVIDIA_REQUIRE_CUDA");
      EXPECT_EQ(e.where(), where) << text << ": " << e.what();
    }
  };
  expect_error("cuda>=12.4 gpu=h100", "term 2 condition 1");       // unknown property
  expect_error("cuda>=12.x", "term 1 condition 1");                // not a version
  expect_error("brand>tesla", "term 1 condition 1");               // brand takes = and != only
  expect_error("brand=tesla,,driver>=470", "term 1 condition 2");  // empty condition
  expect_error("cuda", "term 1 condition 1");
  expect_error("cuda>=", "term 1 condition 1");
  EXPECT_THROW(parse_nvidia_require("   ", "x"), InputError);
}

TEST(NvidiaRequire, EvaluationPerGpuWithBranchClauses) {
  const auto e =
      parse_nvidia_require(parse_image_cuda_env(image_env("12.4.1")).requirements[0].second, "12.4.1");
  // A 550 driver supports CUDA 12.4 natively: the first term decides.
  auto r = evaluate_require(e, {gpu("550.54.15", "12.4", "Tesla")});
  EXPECT_TRUE(r.satisfied);
  EXPECT_EQ(r.term, 0);
  EXPECT_FALSE(r.via_branch_clause);
  // A 535 driver (CUDA 12.2) on a data-center GPU: allowed by the r535 brand clause.
  r = evaluate_require(e, {gpu("535.104.05", "12.2", "Tesla"), gpu("535.104.05", "12.2", "tesla")});
  EXPECT_TRUE(r.satisfied);
  EXPECT_TRUE(r.via_branch_clause);
  EXPECT_EQ(r.term_text, "brand=tesla,driver>=535,driver<536");
  // The same driver branch on a brand the image does not list: refused, first term printed.
  r = evaluate_require(e, {gpu("535.104.05", "12.2", "Tesla"), gpu("535.104.05", "12.2", "GRID")});
  EXPECT_FALSE(r.satisfied);
  EXPECT_EQ(r.explanation, "unsatisfied condition: cuda>=12.4");
  // An r545 driver is neither new enough nor an allowed branch.
  EXPECT_FALSE(evaluate_require(e, {gpu("545.23.08", "12.3", "Tesla")}).satisfied);
  // No GPU selected: brand/arch pass, cuda/driver still count.
  EXPECT_TRUE(evaluate_require(e, {}).satisfied);
  const auto arch = parse_nvidia_require("cuda>=12.0,arch>=8.0", "x");
  EXPECT_FALSE(evaluate_require(arch, {gpu("550.54.15", "12.4", "Tesla", "7.0")}).satisfied);
  EXPECT_TRUE(evaluate_require(arch, {gpu("550.54.15", "12.4", "Tesla", "9.0")}).satisfied);
}

TEST(CompatTable, ShippedTableRows) {
  const auto& t = table();
  EXPECT_EQ(t.full_minimum(v("13.0")), "580.65.06");
  EXPECT_EQ(t.full_minimum(v("13.0.2")), "580.65.06");  // GA of 13.0 supports every 13.0.x
  EXPECT_EQ(t.bundled_driver(v("13.0.2")), "580.95.05");
  EXPECT_EQ(t.bundled_driver(v("12.2.1")), "535.86.09");
  EXPECT_EQ(t.full_minimum(v("11.0")), "450.51.05");
  EXPECT_FALSE(t.full_minimum(v("12.7")));  // there is no CUDA 12.7
  EXPECT_FALSE(t.full_minimum(v("14.0")));
  EXPECT_EQ(t.minor_minimum(12), "525.60.13");
  EXPECT_EQ(t.minor_minimum(13), "580");
  EXPECT_EQ(t.newest_cuda_for(v("570.133.20")), v("12.8"));
  EXPECT_EQ(t.newest_cuda_for(v("535.104.05")), v("12.2"));
  EXPECT_FALSE(t.source.empty());
}

TEST(CompatTable, BadTablesAreInputErrors) {
  EXPECT_THROW(parse_cuda_compat_yaml("schema: gpuqual.cuda-compat/v1\nsource: x\nreleases: {\"13.0\": "
                                      "\"580.65.06\"}\nminor_version: {}\n",
                                      "t"),
               InputError);  // X.Y.Z required
  EXPECT_THROW(
      parse_cuda_compat_yaml(
          "schema: gpuqual.cuda-compat/v1\nsource: x\nreleases: {\"13.0.0\": \"13.0\"}\nminor_version: {}\n",
          "t"),
      InputError);  // not a driver version
  EXPECT_THROW(
      parse_cuda_compat_yaml(
          "schema: gpuqual.cuda-compat/v1\nreleases: {\"13.0.0\": \"580.65.06\"}\nminor_version: {}\n", "t"),
      InputError);  // no source
  EXPECT_THROW(parse_cuda_compat_yaml("schema: other\n", "t"), InputError);
}

TEST(CompatRules, WhichRuleDecides) {
  const auto& t = table();
  auto d = judge_cuda_on_driver(t, v("13.0"), host("580.95.05", "13.0"), false);
  EXPECT_EQ(d.status, Status::pass);
  EXPECT_EQ(d.rule, CompatRule::toolkit_table);
  EXPECT_EQ(d.explanation, "driver 580.95.05 >= 580.65.06, the minimum for CUDA 13.0 (full compatibility)");

  // 12.9 runtime on a 12.8 driver: same major, above 525.60.13 → minor-version compatibility.
  d = judge_cuda_on_driver(t, v("12.9"), host("570.133.20", "12.8"), false);
  EXPECT_EQ(d.status, Status::warn);
  EXPECT_EQ(d.rule, CompatRule::minor_version);
  EXPECT_NE(d.explanation.find("575.51.03"), std::string::npos) << d.explanation;

  // CUDA 13 on an r570 driver: too old, with both minimums named.
  d = judge_cuda_on_driver(t, v("13.0"), host("570.133.20", "12.8"), false);
  EXPECT_EQ(d.status, Status::fail);
  EXPECT_EQ(d.rule, CompatRule::too_old);
  EXPECT_EQ(d.explanation,
            "driver 570.133.20 (supports CUDA 12.8) is too old for CUDA 13.0: needs >= 580.65.06 (full "
            "compatibility) "
            "or >= 580 (minor-version compatibility, CUDA 13.x)");
  EXPECT_EQ(d.minimum_driver, "580.65.06");

  // The same with cuda-compat libraries in place: forward compatibility, a warning.
  d = judge_cuda_on_driver(t, v("13.0"), host("570.133.20", "12.8"), true);
  EXPECT_EQ(d.status, Status::warn);
  EXPECT_EQ(d.rule, CompatRule::forward_compat);

  // A release newer than the table (13.3: its minimum is not read from NVIDIA's table yet): the
  // driver's own CUDA version decides.
  d = judge_cuda_on_driver(t, v("13.3"), host("610.43.02", "13.3"), false);
  EXPECT_EQ(d.rule, CompatRule::driver_reports_cuda);
  EXPECT_EQ(d.status, Status::pass);
  // 13.1 is in the table (590.44.01): an earlier driver runs it by minor-version compatibility only.
  d = judge_cuda_on_driver(t, v("13.1"), host("580.95.05", "13.0"), false);
  EXPECT_EQ(d.rule, CompatRule::minor_version);
  EXPECT_EQ(d.status, Status::warn);
  EXPECT_EQ(d.minimum_driver, "590.44.01");
  d = judge_cuda_on_driver(t, v("14.0"), host("590.10.01", nullptr), false);
  EXPECT_EQ(d.status, Status::error);
  EXPECT_EQ(d.rule, CompatRule::unknown_release);

  // This machine: no driver at all.
  d = judge_cuda_on_driver(t, v("13.0"), host(nullptr, nullptr), false);
  EXPECT_EQ(d.status, Status::skip);
  EXPECT_EQ(d.rule, CompatRule::no_driver);
  EXPECT_NE(d.explanation.find("580.65.06"), std::string::npos);
}

TEST(CompatImages, RealImagesAgainstDrivers) {
  const auto& t = table();
  // nvidia/cuda:12.4.1 on an r535 H100 node: the toolkit lets it in through the r535 brand
  // clause, and 535 >= 525.60.13 makes it minor-version compatibility (no cuda-compat needed).
  auto r = judge_image("nvidia/cuda:12.4.1", parse_image_cuda_env(image_env("12.4.1")), t,
                       host("535.104.05", "12.2"), {gpu("535.104.05", "12.2", "Tesla")});
  EXPECT_EQ(r.status, Status::warn);
  EXPECT_EQ(r.rule, "minor-version compatibility");
  EXPECT_NE(r.reason.find("brand=tesla,driver>=535,driver<536"), std::string::npos) << r.reason;

  // nvidia/cuda:13.0.0 on an r570 node: below the 13.x minimum (580), but r570 is a listed
  // branch of the image → forward compatibility through the image's cuda-compat.
  r = judge_image("nvidia/cuda:13.0.0", parse_image_cuda_env(image_env("13.0.0")), t,
                  host("570.133.20", "12.8"), {gpu("570.133.20", "12.8", "Unknown")});
  EXPECT_EQ(r.status, Status::warn);
  EXPECT_EQ(r.rule, "forward compatibility (cuda-compat)");
  EXPECT_NE(r.reason.find("brand=unknown,driver>=570,driver<571"), std::string::npos) << r.reason;

  // nvidia/cuda:13.0.0 on an r560 node: refused by the toolkit; the minimum is named.
  r = judge_image("nvidia/cuda:13.0.0", parse_image_cuda_env(image_env("13.0.0")), t,
                  host("560.35.03", "12.6"), {gpu("560.35.03", "12.6", "Tesla")});
  EXPECT_EQ(r.status, Status::fail);
  ASSERT_FALSE(r.findings.empty());
  EXPECT_EQ(r.findings.back().code, "compat.require_unsatisfied");
  EXPECT_NE(r.reason.find("unsatisfied condition: cuda>=13.0"), std::string::npos) << r.reason;
  EXPECT_NE(r.reason.find("needs >= 580.65.06"), std::string::npos) << r.reason;
  EXPECT_NE(r.findings.back().action.find("580.65.06"), std::string::npos);

  // nvidia/cuda:12.8.1 on a 580 node: native.
  r = judge_image("nvidia/cuda:12.8.1", parse_image_cuda_env(image_env("12.8.1")), t,
                  host("580.95.05", "13.0"), {gpu("580.95.05", "13.0", "Tesla")});
  EXPECT_EQ(r.status, Status::pass) << r.reason;
  EXPECT_EQ(r.rule, "toolkit/driver table (full compatibility)");
}

TEST(CompatImages, DisableRequireLegacyAndMisspelling) {
  const auto& t = table();
  // NVIDIA_DISABLE_REQUIRE=true: the toolkit checks nothing; CUDA_VERSION still needs the driver.
  auto env = parse_image_cuda_env(
      {"CUDA_VERSION=13.0.0", "NVIDIA_REQUIRE_CUDA=cuda>=13.0", "NVIDIA_DISABLE_REQUIRE=true"});
  EXPECT_TRUE(env.require_disabled);
  auto r = judge_image("custom:1", env, t, host("560.35.03", "12.6"), {gpu("560.35.03", "12.6", "Tesla")});
  EXPECT_EQ(r.status, Status::fail);
  EXPECT_EQ(r.findings.front().code, "compat.require_disabled");
  EXPECT_EQ(r.findings.back().code, "compat.driver_too_old");
  // Go ParseBool: "yes" is not true.
  EXPECT_FALSE(parse_image_cuda_env({"NVIDIA_DISABLE_REQUIRE=yes"}).require_disabled);
  // The misspelling from NVIDIA/nvidia-container-toolkit#152 has no effect.
  env = parse_image_cuda_env({"CUDA_VERSION=12.4.1", "NVIDIA_DISABLE_REQUIRES=1"});
  EXPECT_TRUE(env.misspelt_disable);
  EXPECT_FALSE(env.require_disabled);
  // Legacy image: CUDA_VERSION only → cuda>=12.4 synthesized.
  EXPECT_TRUE(env.legacy);
  EXPECT_EQ(env.requirements.at(0).second, "cuda>=12.4");
  r = judge_image("legacy:1", env, t, host("535.104.05", "12.2"), {gpu("535.104.05", "12.2", "Tesla")});
  EXPECT_EQ(r.status, Status::fail);
  EXPECT_EQ(r.findings.front().code, "compat.require_misspelt");
  // A non-CUDA image is not judged.
  EXPECT_EQ(
      judge_image("busybox", parse_image_cuda_env({"PATH=/bin"}), t, host("580.95.05", "13.0"), {}).status,
      Status::skip);
  // A bad requirement string names the image and variable.
  try {
    judge_image("bad:1", parse_image_cuda_env({"NVIDIA_REQUIRE_CUDA=cuda>>12"}), t, host("580.95.05", "13.0"),
                {});
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), "image bad:1 env NVIDIA_REQUIRE_CUDA");
  }
}
