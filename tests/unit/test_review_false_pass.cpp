// Cases an adversarial review found passing where they must not (issue 31): each test fails
// without the rule it names.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "core/diff_pair.hpp"
#include "core/input_error.hpp"
#include "core/record_io.hpp"
#include "record_builders.hpp"

using namespace gpuqual;
using namespace gpuqual::testing;
namespace fs = std::filesystem;

namespace {

// diff's pair rule (docs/diff.md, "Records that belong together"): a pair whose order cannot be
// told from its times is refused, never judged as if it were in order.
class ReviewDiffOrder : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) / "gpuqual-review-diff-order";
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    before_ = make_record(1);
    after_ = make_record(1);
    after_.run_id = "run-test-2";
    after_.started_at = "2026-12-01T09:00:00Z";
    after_.ended_at = "2026-12-01T09:03:00Z";
  }
  void TearDown() override { fs::remove_all(dir_); }
  // The refusal's one-line message, or "" when the pair is accepted.
  std::string refusal(const RunRecord& b, const RunRecord& a) {
    const std::string bp = (dir_ / "b.json").string(), ap = (dir_ / "a.json").string();
    write_record(bp, b);
    write_record(ap, a);
    try {
      require_before_after(bp, b, ap, a);
    } catch (const InputError& e) {
      return e.what();
    }
    return "";
  }
  fs::path dir_;
  RunRecord before_, after_;
};

TEST_F(ReviewDiffOrder, SwappedArgumentsWithAnUnreadableEndTimeAreRefused) {
  // BEFORE is the newer run (swapped), and its end time is not a time: its start still orders it.
  RunRecord newer = after_, older = before_;
  newer.ended_at = "soon";
  const std::string why = refusal(newer, older);
  EXPECT_NE(why.find("the arguments are swapped"), std::string::npos) << why;
  EXPECT_NE(why.find("started 2026-12-01T09:00:00Z"), std::string::npos) << why;
}

TEST_F(ReviewDiffOrder, AnAfterWithoutAReadableStartIsRefused) {
  after_.started_at = "yesterday";
  const std::string why = refusal(before_, after_);
  EXPECT_NE(why.find("yesterday is not an RFC 3339 time"), std::string::npos) << why;
  EXPECT_NE(why.find("cannot be put in order"), std::string::npos) << why;
}

TEST_F(ReviewDiffOrder, ABeforeWithoutAnyReadableTimeIsRefused) {
  before_.started_at = "x";
  before_.ended_at = "";
  const std::string why = refusal(before_, after_);
  EXPECT_NE(why.find("cannot be put in order"), std::string::npos) << why;
}

TEST_F(ReviewDiffOrder, AnUnreadableEndTimeOfABeforeInOrderIsAccepted) {
  before_.ended_at = "2026-13-40T99:00:00Z";
  EXPECT_EQ(refusal(before_, after_), "");
}

}  // namespace
