// The Xid ratings the docs state agree with what the code does: docs/observe.md's Xid table
// (each code as observe rates it, core/judge/observe_faults.hpp) and docs/health.md's lists (each
// code as baselines/xid-severity.yaml rates it), read from the files themselves; and every Xid
// observe.md mentions is in its table, so no rating is stated anywhere else in it.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include "core/judge/observe_faults.hpp"
#include "core/rules/health_rules.hpp"
#include "core/rules/health_severity.hpp"

namespace gpuqual::observe {
namespace {

const SeverityTable& table() {
  static const SeverityTable t =
      load_severity_tables(std::string(GPUQUAL_SOURCE_DIR) + "/baselines", health_finding_codes());
  return t;
}

std::string read_doc(const std::string& name) {
  std::ifstream in(std::string(GPUQUAL_SOURCE_DIR) + "/docs/" + name);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The rows `| <code> | <rating> | ...` of the table after `marker`.
std::map<int, std::string> table_after(const std::string& doc, const std::string& marker) {
  std::map<int, std::string> out;
  std::size_t at = doc.find(marker);
  if (at == std::string::npos) return out;
  std::istringstream lines(doc.substr(at + marker.size()));
  std::string line;
  const std::regex row(R"(^\|\s*(\d+)\s*\|\s*(fail|warn|info)\b.*)");
  bool in_table = false;
  while (std::getline(lines, line)) {
    if (line.rfind('|', 0) != 0) {
      if (in_table) break;
      continue;
    }
    in_table = true;
    std::smatch m;
    if (std::regex_match(line, m, row)) out[std::stoi(m[1])] = m[2];
  }
  return out;
}

TEST(ObserveDocs, TheXidTableOfObserveMdIsWhatObserveRates) {
  const std::string doc = read_doc("observe.md");
  const std::map<int, std::string> rated = table_after(doc, "<!-- observe-xid-ratings");
  ASSERT_GE(rated.size(), 8u) << "docs/observe.md: no Xid table after <!-- observe-xid-ratings";
  const ObservePolicy defaults;
  for (const auto& [code, rating] : rated)
    EXPECT_EQ(rating, to_string(observe_xid_severity(code, defaults, table()))) << "Xid " << code;
  // NVIDIA's catalog: 94 (contained, restart the application) warns, 95 (uncontained, reset) fails.
  EXPECT_EQ(rated.at(94), "warn");
  EXPECT_EQ(rated.at(95), "fail");
  // Every Xid the page names is in the table.
  const std::regex mention(R"((?:Xid |xid\.)(\d+))");
  for (auto it = std::sregex_iterator(doc.begin(), doc.end(), mention); it != std::sregex_iterator(); ++it)
    EXPECT_TRUE(rated.count(std::stoi((*it)[1])))
        << "docs/observe.md names Xid " << (*it)[1] << " outside its table";
}

TEST(ObserveDocs, TheXidListsOfHealthMdAreTheSeverityTables) {
  const std::string doc = read_doc("health.md");
  const std::size_t from = doc.find("Xids (`xid.<code>`");
  ASSERT_NE(from, std::string::npos) << "docs/health.md: the paragraph of Xid ratings is gone";
  std::string para = doc.substr(from, doc.find("\n\n", from) - from);
  para = std::regex_replace(para, std::regex(R"(\([^()]*\))"), "");  // asides hold no ratings
  std::set<int> seen;
  const std::regex segment(R"((fail|warn|info) on ([^;]*))");
  const std::regex code(R"((\d+)(?:-(\d+))?)");
  for (auto s = std::sregex_iterator(para.begin(), para.end(), segment); s != std::sregex_iterator(); ++s) {
    const std::string rating = (*s)[1], list = (*s)[2];
    for (auto c = std::sregex_iterator(list.begin(), list.end(), code); c != std::sregex_iterator(); ++c) {
      const int lo = std::stoi((*c)[1]);
      const int hi = (*c)[2].matched ? std::stoi((*c)[2]) : lo;
      for (int x = lo; x <= hi; ++x) {
        EXPECT_EQ(rating, to_string(table().xid(x).severity))
            << "docs/health.md rates Xid " << x << " " << rating;
        seen.insert(x);
      }
    }
  }
  EXPECT_TRUE(seen.count(94) && seen.count(95) && seen.count(79)) << "docs/health.md: no Xid list parsed";
}

}  // namespace
}  // namespace gpuqual::observe
