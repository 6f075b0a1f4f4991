// Golden tests: every output format of every fixture verdict, byte for byte, against
// tests/data/golden/<fixture>.<ext>. After an intended format change, regenerate with
//   GPUQUAL_UPDATE_GOLDEN=1 build/gpuqual_unit_tests --gtest_filter='ReportGolden*'
// and review the diff in the pull request.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "core/base/atomic_file.hpp"
#include "report_fixtures.hpp"
#include "runner/reporters/reporters.hpp"

using namespace gpuqual;
using namespace gpuqual::testing;

namespace {

struct Format {
  const char* ext;
  std::string (*render)(const Verdict&);
};

const Format kFormats[] = {
    {"table.txt", [](const Verdict& v) { return render_table(v); }},
    {"json", render_json},
    {"junit.xml", render_junit},
    {"prom", render_prometheus},
    {"md", render_markdown},
};

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

class ReportGolden : public ::testing::TestWithParam<std::string> {};

}  // namespace

TEST_P(ReportGolden, EveryFormatMatches) {
  const Verdict v = judge_fixture(GetParam());
  const bool update = std::getenv("GPUQUAL_UPDATE_GOLDEN") != nullptr;
  for (const Format& f : kFormats) {
    const std::string path = std::string(GPUQUAL_TEST_DATA) + "/golden/" + GetParam() + "." + f.ext;
    const std::string actual = f.render(v);
    if (update) {
      write_file_atomic(path, actual);
      continue;
    }
    std::ifstream probe(path);
    ASSERT_TRUE(probe.good()) << path << " is missing; run with GPUQUAL_UPDATE_GOLDEN=1 to create it";
    EXPECT_EQ(actual, slurp(path))
        << "output differs from " << path
        << " (if the change is intended: GPUQUAL_UPDATE_GOLDEN=1, then review the diff)";
  }
  if (update) GTEST_SKIP() << "golden files rewritten, nothing compared";
}

INSTANTIATE_TEST_SUITE_P(Fixtures, ReportGolden, ::testing::ValuesIn(fixture_names()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string name = info.param.substr(std::string("synthetic-").size());
                           for (char& c : name) {
                             if (c == '-') c = '_';
                           }
                           return name;
                         });
