// gpuqual.io/valid-until (docs/kubernetes.md, "Valid until"): `gpuqual node-condition --max-age`
// writes when a True condition's qualification expires, as a label (compact UTC: label values hold
// no ':') and an annotation (RFC 3339), and removes both when the condition is not True.
// `gpuqual revalidate` reads the label back: a current node past it is expired.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "cli_helpers.hpp"
#include "core/base/input_error.hpp"
#include "core/base/utc_time.hpp"
#include "core/fleet/revalidate.hpp"
#include "core/verdict/node_condition.hpp"

using namespace gpuqual;
using gpuqual::testing::run_cli;
using gpuqual::testing::shell_quote;
using nlohmann::json;

namespace {

ConditionWrite written(const std::string& status, const std::string& now) {
  ConditionWrite w;
  w.condition = {status, status == "True" ? "Qualified" : "QualificationFailed", "m", now, now};
  return w;
}

}  // namespace

TEST(ValidUntil, ATrueConditionIsValidForMaxAge) {
  nlohmann::ordered_json patch = condition_patch(written("True", "2026-12-03T12:00:00Z"));
  add_valid_until(patch, written("True", "2026-12-03T12:00:00Z"), 7 * 86400.0);
  EXPECT_EQ(patch["metadata"]["annotations"][kValidUntilKey], "2026-12-10T12:00:00Z");
  EXPECT_EQ(patch["metadata"]["labels"][kValidUntilKey], "20261210T120000Z");
  // The consecutive-passes annotation and the condition stay in the same patch.
  EXPECT_TRUE(patch["metadata"]["annotations"].contains(kConsecutivePassesAnnotation));
  EXPECT_EQ(patch["status"]["conditions"][0]["status"], "True");

  add_valid_until(patch, written("True", "2026-12-31T23:30:00Z"), 36 * 3600.0);  // over a year's end
  EXPECT_EQ(patch["metadata"]["labels"][kValidUntilKey], "20270102T113000Z");
}

TEST(ValidUntil, AnyOtherStatusRemovesIt) {
  for (const char* status : {"False", "Unknown"}) {
    nlohmann::ordered_json patch = condition_patch(written(status, "2026-12-03T12:00:00Z"));
    add_valid_until(patch, written(status, "2026-12-03T12:00:00Z"), 86400.0);
    EXPECT_TRUE(patch["metadata"]["labels"][kValidUntilKey].is_null()) << status;
    EXPECT_TRUE(patch["metadata"]["annotations"][kValidUntilKey].is_null()) << status;
  }
}

TEST(ValidUntil, AHeartbeatThatIsNoTimeIsAnInputError) {
  nlohmann::ordered_json patch;
  EXPECT_THROW(add_valid_until(patch, written("True", "yesterday"), 86400.0), InputError);
}

class ValidUntilCli : public gpuqual::testing::ScratchDirTest {
 protected:
  ValidUntilCli() : ScratchDirTest("valid-until") {}
  std::string node() {
    const auto p = scratch_ / "node.json";
    std::ofstream(p) << R"({"metadata": {"name": "gpu-node-12"}, "status": {"conditions": []}})";
    return shell_quote(p.string());
  }
};

TEST_F(ValidUntilCli, MaxAgeAddsItToThePatch) {
  const auto r = run_cli(
      "node-condition --exit-code 0 --node " + node() + " --now 2026-12-03T12:00:00Z --max-age 7d", scratch_);
  ASSERT_EQ(r.code, 0) << r.err;
  const json patch = json::parse(r.out);
  EXPECT_EQ(patch["metadata"]["labels"][kValidUntilKey], "20261210T120000Z");
  EXPECT_EQ(patch["metadata"]["annotations"][kValidUntilKey], "2026-12-10T12:00:00Z");

  const auto failed = run_cli(
      "node-condition --exit-code 1 --node " + node() + " --now 2026-12-03T12:00:00Z --max-age 7d", scratch_);
  ASSERT_EQ(failed.code, 0) << failed.err;
  EXPECT_TRUE(json::parse(failed.out)["metadata"]["labels"][kValidUntilKey].is_null());

  // Without --max-age the patch is as before: no label at all.
  const auto plain =
      run_cli("node-condition --exit-code 0 --node " + node() + " --now 2026-12-03T12:00:00Z", scratch_);
  ASSERT_EQ(plain.code, 0) << plain.err;
  EXPECT_FALSE(json::parse(plain.out)["metadata"].contains("labels"));
}

TEST_F(ValidUntilCli, ABadMaxAgeIsAUsageError) {
  const auto r = run_cli("node-condition --exit-code 0 --node " + node() + " --max-age soon", scratch_);
  EXPECT_EQ(r.code, 3) << r.out;
  EXPECT_NE(r.err.find("--max-age"), std::string::npos) << r.err;
}

TEST(ValidUntil, TheLabelFormReadsBack) {
  EXPECT_EQ(parse_valid_until_label("20261210T120000Z"), parse_rfc3339_ms("2026-12-10T12:00:00Z"));
  EXPECT_EQ(parse_valid_until_label("2026-12-10T12:00:00Z"), std::nullopt);  // the annotation's form
  EXPECT_EQ(parse_valid_until_label("20261310T120000Z"), std::nullopt);      // month 13
  EXPECT_EQ(parse_valid_until_label("20261210T120000"), std::nullopt);
  EXPECT_EQ(parse_valid_until_label(""), std::nullopt);
}

// Re-validation reads the label without gpuqual having written anything else: a current node
// past its valid-until is expired; one before it, and failed or due nodes, are left as they are.
TEST(ValidUntil, RevalidateTakesAPassedLabelAsExpired) {
  Cluster cluster;
  auto node = [&](const std::string& name, const std::string& until) {
    ClusterNode n;
    n.name = name;
    if (!until.empty()) n.labels[kValidUntilKey] = until;
    cluster.nodes.push_back(n);
  };
  node("past", "20261201T000000Z");
  node("future", "20261231T000000Z");
  node("failed", "20261201T000000Z");
  node("unlabelled", "");
  node("garbled", "tomorrow");
  Standings s = {{"past", Due::current},
                 {"future", Due::current},
                 {"failed", Due::failed},
                 {"unlabelled", Due::current},
                 {"garbled", Due::current}};
  std::vector<std::string> warnings;
  apply_valid_until(s, cluster, *parse_rfc3339_ms("2026-12-03T12:00:00Z"), warnings);
  EXPECT_EQ(s["past"], Due::expired);
  EXPECT_EQ(s["future"], Due::current);
  EXPECT_EQ(s["failed"], Due::failed);
  EXPECT_EQ(s["unlabelled"], Due::current);
  EXPECT_EQ(s["garbled"], Due::current);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("node garbled"), std::string::npos) << warnings[0];
}
