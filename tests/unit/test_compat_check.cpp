// The `compat` check on this machine: no driver, so the runtime cannot be judged and the check
// skips with the reason; bad parameters are input errors.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/base/input_error.hpp"
#include "device/node/compat_facts.hpp"
#include "suites/check.hpp"
#include "suites/check_context.hpp"

using namespace gpuqual;

namespace {
CheckResult run_compat(nlohmann::json params) {
  const CheckInfo* info = CheckRegistry::instance().find("compat");
  EXPECT_NE(info, nullptr);
  CheckContext ctx;
  ctx.params = std::move(params);
  return info->make()->run(ctx);
}
}  // namespace

TEST(CompatCheck, NodeFactsAndVerdictFollowTheDriver) {
  CompatFacts facts = collect_compat_facts();
  ASSERT_TRUE(facts.runtime.has_value());
  EXPECT_GE(facts.runtime->major(), 12);
  nlohmann::json params = {
      {"images",
       {{{"name", "nvidia/cuda:13.0.0"}, {"cuda_version", "13.0.0"}, {"require_cuda", "cuda>=13.0"}}}}};
  CheckResult r = run_compat(params);
  EXPECT_EQ(r.name, "compat");
  if (!facts.host.driver && !facts.host.cuda) {
    EXPECT_EQ(r.status, Status::skip);
    EXPECT_NE(r.reason.find("no NVIDIA driver found"), std::string::npos) << r.reason;
    EXPECT_NE(r.reason.find("580.65.06"), std::string::npos) << r.reason;  // what CUDA 13.0 would need
  } else {
    EXPECT_NE(r.status, Status::skip) << r.reason;
    EXPECT_FALSE(r.findings.empty());
  }
  EXPECT_NE(r.attributes.at("compat_table").find("cuda-compat.yaml"), std::string::npos);
}

TEST(CompatCheck, BadParametersAreInputErrors) {
  EXPECT_THROW(run_compat({{"imagez", nlohmann::json::array()}}), InputError);
  EXPECT_THROW(run_compat({{"images", {{{"name", "x"}}}}}), InputError);  // no env
  EXPECT_THROW(run_compat({{"tables_dir", "/nonexistent"}}), InputError);
}

TEST(CompatCheck, BrandNamesFollowLibnvidiaContainer) {
  EXPECT_EQ(libnvidia_container_brand(2), "Tesla");     // NVML_BRAND_TESLA
  EXPECT_EQ(libnvidia_container_brand(14), "Unknown");  // NVML_BRAND_NVIDIA: unnamed → Unknown
}
