// `gpuqual run --suite burnin --duration 10s` on this GPU-less machine: exits 2 promptly, the
// record says why for every check, and the burnin check carries the CUDA runtime's reason.
// The burnin check's parameters are validated before the GPU is asked for.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "device/measure/measure_gpus.hpp"
#include "run_fixture.hpp"
#include "suites/check.hpp"
#include "suites/check_context.hpp"

namespace gpuqual::testing {
namespace {

using ::testing::HasSubstr;

class BurninRun : public RunFixture {};

TEST_F(BurninRun, WithoutAGpuExitsTwoPromptlyWithReasons) {
  const auto r = gpuqual({"run", "--suite", "burnin", "--duration", "10s", "--output", "r.json",
                          "--suites-dir", GPUQUAL_SOURCE_DIR "/suites"},
                         {}, GPUQUAL_BINARY);
  const RunRecord rec = record();
  if (!rec.gpus.empty()) GTEST_SKIP() << "this machine has GPUs; tests/gpu runs a short burn-in";
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_LT(r.seconds, 30);  // nothing waits for the 10 s duration without a GPU
  bool burnin = false;
  for (const auto& c : rec.checks) {
    EXPECT_NE(c.status, Status::pass) << c.name;
    EXPECT_FALSE(c.reason.empty()) << c.name;
    if (c.name == "burnin") {
      burnin = true;
      EXPECT_EQ(c.status, Status::error) << c.reason;
      EXPECT_EQ(c.reason, probe_cuda().reason);
    }
  }
  EXPECT_TRUE(burnin);
}

TEST(BurninCheck, BadParametersNameTheKey) {
  const std::vector<std::pair<nlohmann::json, const char*>> cases = {
      {nlohmann::json::object(), "duration_s"},
      {{{"duration_s", 10}, {"precision", "fp64"}}, "precision"},
      {{{"duration_s", 10}, {"telemetry_hz", 0}}, "telemetry_hz"},
      {{{"duration_s", 10}, {"memtest_evry_s", 5}}, "memtest_evry_s"},
  };
  for (const auto& [params, mentions] : cases) {
    CheckContext ctx;
    ctx.params = params;
    const CheckResult r = CheckRegistry::instance().find("burnin")->make()->run(ctx);
    EXPECT_EQ(r.status, Status::error) << params.dump();
    EXPECT_THAT(r.reason, HasSubstr("bad parameters"));
    EXPECT_THAT(r.reason, HasSubstr(mentions));
  }
}

}  // namespace
}  // namespace gpuqual::testing
