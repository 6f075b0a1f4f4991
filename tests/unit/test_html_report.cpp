// `gpuqual report`: the HTML page's structure (verdict, stack, per-GPU bars with the slow GPU
// marked failing, findings with meaning/action, diff and pool views), that it references
// nothing outside itself, that hostile strings from records are escaped, and the command's exit
// codes (0/1/2 as the verdict, 3 for bad input).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "cli_helpers.hpp"
#include "core/baseline/baseline.hpp"
#include "core/judge/compare.hpp"
#include "core/judge/diff.hpp"
#include "core/record/record_io.hpp"
#include "core/rules/health_rules.hpp"
#include "core/rules/health_severity.hpp"
#include "runner/html/html_escape.hpp"
#include "runner/html/html_report.hpp"

namespace fs = std::filesystem;
using namespace gpuqual;

namespace {

const std::string kData = GPUQUAL_TEST_DATA;

RunRecord fixture(const std::string& name) {
  return read_record(kData + "/records/synthetic-" + name + ".json");
}
Baseline test_baseline() { return load_baseline(kData + "/baselines/h200-sxm-141gb.yaml"); }
SeverityTable meanings() {
  return load_severity_tables(std::string(GPUQUAL_SOURCE_DIR) + "/baselines", health_finding_codes());
}

std::string render_compare(const RunRecord& record, const Baseline* baseline,
                           const SeverityTable* table = nullptr) {
  const Verdict v = compare_record(record, baseline, {});
  html::ReportInput in;
  in.verdict = &v;
  in.record = &record;
  in.severity = table;
  return html::render_report(in);
}

// The <div class="metric"> block of one metric.
std::string metric_block(const std::string& page, const std::string& metric) {
  const auto start = page.find("<div class=\"metric\" data-metric=\"" + metric + "\"");
  if (start == std::string::npos) return "";
  return page.substr(start, page.find("</div>", start) - start);
}

// Everything a page could pull from outside itself: scripts, resources, styles, links.
void expect_self_contained(const std::string& page) {
  EXPECT_EQ(page.find("<script"), std::string::npos);
  EXPECT_EQ(page.find("@import"), std::string::npos);
  EXPECT_EQ(page.find("url("), std::string::npos);
  EXPECT_EQ(page.find("<link"), std::string::npos);
  EXPECT_EQ(page.find("<img"), std::string::npos);
  EXPECT_EQ(page.find("<iframe"), std::string::npos);
  EXPECT_EQ(page.find("<object"), std::string::npos);
  EXPECT_EQ(page.find("<embed"), std::string::npos);
  // Attributes live inside tags; escaped text (&lt;img src=...) is not a tag. No tag names a URL.
  const std::regex url_in_tag("<[a-zA-Z][^>]*(https?:|//|data:)[^>]*>", std::regex::icase);
  EXPECT_FALSE(std::regex_search(page, url_in_tag));
  const std::regex tag("<[a-zA-Z][^>]*>");
  const std::regex href("href\\s*=\\s*[\"']?([^\"' >]*)", std::regex::icase);
  const std::regex fetches("\\s(src|srcset|action|background|poster|on[a-z]+)\\s*=", std::regex::icase);
  for (auto t = std::sregex_iterator(page.begin(), page.end(), tag); t != std::sregex_iterator(); ++t) {
    const std::string text = t->str();
    EXPECT_FALSE(std::regex_search(text, fetches)) << text;
    std::smatch m;
    if (std::regex_search(text, m, href)) {
      EXPECT_EQ(m[1].str().rfind('#', 0), 0u) << text;
    }
  }
}

TEST(HtmlEscape, EscapesMarkupQuotesAndBadBytes) {
  EXPECT_EQ(html::escape("<script>alert(1)</script>"), "&lt;script&gt;alert(1)&lt;/script&gt;");
  EXPECT_EQ(html::escape("\"><img src=x onerror='y'>"), "&quot;&gt;&lt;img src=x onerror=&#39;y&#39;&gt;");
  EXPECT_EQ(html::escape("a & b"), "a &amp; b");
  EXPECT_EQ(html::escape("na\xC3\xAFve \xE2\x9C\x93"), "na\xC3\xAFve \xE2\x9C\x93");  // valid UTF-8 kept
  EXPECT_EQ(html::escape("bad\xFF\xC3"), "bad\xEF\xBF\xBD\xEF\xBF\xBD");              // invalid → U+FFFD
  EXPECT_EQ(html::escape("nul\x01"), "nul\xEF\xBF\xBD");
  EXPECT_EQ(html::escape("\xED\xA0\x80"), "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");  // UTF-16 surrogate
}

TEST(HtmlReport, SlowGpuStandsOut) {
  const Baseline b = test_baseline();
  const SeverityTable t = meanings();
  const std::string page = render_compare(fixture("slow-gpu"), &b, &t);
  EXPECT_NE(page.find("id=\"verdict\" data-outcome=\"fail\""), std::string::npos);
  EXPECT_NE(page.find("<ul class=\"reasons\">"), std::string::npos);
  for (const char* id : {"id=\"stack\"", "id=\"metrics\"", "id=\"findings\"", "id=\"checks\""})
    EXPECT_NE(page.find(id), std::string::npos) << id;
  // Stack facts from the record.
  EXPECT_NE(page.find("570.133.20"), std::string::npos);
  EXPECT_NE(page.find("2.28.3"), std::string::npos);
  EXPECT_NE(page.find("96.00.99.00.01"), std::string::npos);
  // gemm: GPU 1 (716 TFLOP/s against 771) fails, GPU 0 passes, both against the expectation.
  const std::string gemm = metric_block(page, "gemm.bf16.tflops");
  ASSERT_FALSE(gemm.empty());
  EXPECT_NE(gemm.find("data-status=\"fail\""), std::string::npos);
  EXPECT_NE(gemm.find("class=\"bar fail\" data-gpu=\"1\""), std::string::npos);
  EXPECT_NE(gemm.find("class=\"bar pass\" data-gpu=\"0\""), std::string::npos);
  EXPECT_EQ(gemm.find("class=\"bar fail\" data-gpu=\"0\""), std::string::npos);
  EXPECT_NE(gemm.find("class=\"band\""), std::string::npos);
  EXPECT_NE(gemm.find("class=\"expected\""), std::string::npos);
  EXPECT_NE(gemm.find("GPU 1"), std::string::npos);
  // The other metrics pass on both GPUs.
  const std::string hbm = metric_block(page, "hbm.triad.gbps");
  EXPECT_NE(hbm.find("class=\"bar pass\" data-gpu=\"0\""), std::string::npos);
  EXPECT_NE(hbm.find("class=\"bar pass\" data-gpu=\"1\""), std::string::npos);
  EXPECT_EQ(hbm.find("bar fail"), std::string::npos);
  expect_self_contained(page);
}

TEST(HtmlReport, FindingsCarryMeaningAndAction) {
  const Baseline b = test_baseline();
  const SeverityTable t = meanings();
  const std::string page = render_compare(fixture("ecc-uncorrected"), &b, &t);
  EXPECT_NE(page.find("data-outcome=\"fail\""), std::string::npos);
  const auto at = page.find("<table class=\"findings\">");
  ASSERT_NE(at, std::string::npos);
  const std::string findings = page.substr(at, page.find("</table>", at) - at);
  EXPECT_NE(findings.find("ecc.uncorrected_volatile"), std::string::npos);
  EXPECT_NE(findings.find("drain the node, reset GPU 1; RMA if it recurs"),
            std::string::npos);  // the record's action
  EXPECT_NE(findings.find(html::escape(t.finding("ecc.uncorrected_volatile").meaning)), std::string::npos);
  EXPECT_NE(findings.find(html::escape(t.finding("ecc.corrected_volatile").meaning)), std::string::npos);
  EXPECT_NE(findings.find("watch the rate; a rising count precedes row remaps"),
            std::string::npos);  // the baseline limit's action
}

TEST(HtmlReport, UnknownClassIsInconclusive) {
  const std::string page = render_compare(fixture("unknown-class"), nullptr);
  EXPECT_NE(page.find("data-outcome=\"inconclusive\""), std::string::npos);
  expect_self_contained(page);
}

TEST(HtmlReport, HostileStringsAreEscaped) {
  RunRecord r = fixture("slow-gpu");
  const std::string script = "<script>alert(1)</script>";
  const std::string img = "\"><img src=x onerror=alert(2)>";
  r.node.hostname = script;
  r.node.k8s_node_name = img;
  r.node.kernel = "6.1 & 'quoted' \"double\"";
  r.node.os = "Debian \xE2\x9C\x93 na\xC3\xAFve \xFF";
  r.node.container_runtimes = {"docker <b>28</b>"};
  r.run_id = "run</title><script>x</script>";
  r.gpus[0].vbios = "<svg onload=alert(3)>";
  for (auto& c : r.checks) {
    if (c.name == "gemm") c.reason = img;
    for (auto& f : c.findings) {
      f.detail = script + " & " + img;
      f.action = "<a href=\"http://evil.example/\">click</a>";
    }
  }
  const Baseline b = test_baseline();
  const std::string page = render_compare(r, &b);
  for (const std::string& raw : {script, img, std::string("<b>28</b>"), std::string("<svg onload"),
                                 std::string("<a href"), std::string("</title><script>")})
    EXPECT_EQ(page.find(raw), std::string::npos) << raw;
  EXPECT_NE(page.find("&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
  EXPECT_NE(page.find("&quot;&gt;&lt;img src=x onerror=alert(2)&gt;"), std::string::npos);
  EXPECT_NE(page.find("6.1 &amp; &#39;quoted&#39; &quot;double&quot;"), std::string::npos);
  EXPECT_NE(page.find("Debian \xE2\x9C\x93 na\xC3\xAFve \xEF\xBF\xBD"), std::string::npos);
  // Only the page's own tags: every '<' starts a tag this renderer writes.
  const std::regex tag("<(/?)([a-zA-Z0-9!]+)");
  const std::set<std::string> ours{"!DOCTYPE", "html", "head",  "meta", "title", "style",   "body",
                                   "div",      "h1",   "h2",    "h3",   "p",     "ul",      "li",
                                   "table",    "tr",   "th",    "td",   "span",  "b",       "br",
                                   "svg",      "text", "tspan", "rect", "line",  "polyline"};
  for (auto it = std::sregex_iterator(page.begin(), page.end(), tag); it != std::sregex_iterator(); ++it)
    EXPECT_TRUE(ours.count((*it)[2].str())) << "unexpected tag <" << (*it)[2].str();
  // <b> is ours but only inside the stack-change paragraph; the record's <b> must be text.
  EXPECT_NE(page.find("docker &lt;b&gt;28&lt;/b&gt;"), std::string::npos);
  expect_self_contained(page);
}

TEST(HtmlReport, DiffShowsBeforeAfterBarsAndStackChanges) {
  RunRecord before = fixture("healthy");
  before.node.driver_version = "550.90.07";
  const RunRecord after = fixture("slow-gpu");
  DiffOptions o;
  o.before_origin = "before.json";
  const Verdict v = diff_records(before, after, o);
  html::ReportInput in;
  in.verdict = &v;
  in.record = &after;
  in.before = &before;
  const std::string page = html::render_report(in);
  EXPECT_NE(page.find("data-outcome=\"fail\""), std::string::npos);
  EXPECT_NE(page.find("<tr class=\"changed\"><th>driver</th><td>550.90.07</td><td>570.133.20</td></tr>"),
            std::string::npos);
  EXPECT_NE(page.find("<ul class=\"stack-changes\">"), std::string::npos);
  EXPECT_EQ(page.find("<tr class=\"changed\"><th>NCCL</th>"),
            std::string::npos);  // unchanged rows stay plain
  const std::string gemm = metric_block(page, "gemm.bf16.tflops");
  EXPECT_NE(gemm.find("class=\"bar before\" data-gpu=\"1\""), std::string::npos);
  EXPECT_NE(gemm.find("class=\"bar fail\" data-gpu=\"1\""), std::string::npos);
  expect_self_contained(page);
}

TEST(HtmlReport, PoolHeatMapHasOneRowPerNode) {
  const Baseline b = test_baseline();
  Verdict pool;
  pool.kind = "gate";
  pool.outcome = Outcome::fail;
  pool.summary = "pool summary";
  html::ReportInput in;
  in.verdict = &pool;
  for (const char* name : {"healthy", "slow-gpu"}) {
    RunRecord r = fixture(name);
    r.node.k8s_node_name = std::string("node-") + name;
    in.pool.push_back({r.node.k8s_node_name, name, compare_record(r, &b, {})});
  }
  const std::string page = html::render_report(in);
  EXPECT_NE(page.find("<table class=\"heatmap\">"), std::string::npos);
  const auto slow = page.find("<tr data-node=\"node-slow-gpu\">");
  const auto healthy = page.find("<tr data-node=\"node-healthy\">");
  ASSERT_NE(slow, std::string::npos);
  ASSERT_NE(healthy, std::string::npos);
  const std::string slow_row = page.substr(slow, page.find("</tr>", slow) - slow);
  const std::string healthy_row = page.substr(healthy, page.find("</tr>", healthy) - healthy);
  EXPECT_NE(slow_row.find("class=\"heat fail\""), std::string::npos);
  EXPECT_EQ(healthy_row.find("class=\"heat fail\""), std::string::npos);
  EXPECT_NE(healthy_row.find("class=\"heat pass\""), std::string::npos);
  expect_self_contained(page);
}

// --- the command ---------------------------------------------------------------------------

using Cli = gpuqual::testing::CliRun;

Cli run_cli(const std::string& args) {
  return gpuqual::testing::run_cli("report " + args, fs::temp_directory_path());
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

class ReportCli : public gpuqual::testing::ScratchDirTest {
 protected:
  ReportCli() : ScratchDirTest("report") {}
  std::string rec(const std::string& name) { return kData + "/records/synthetic-" + name + ".json"; }
  std::string base() { return " --baseline " + kData + "/baselines/h200-sxm-141gb.yaml"; }
};

TEST_F(ReportCli, ExitCodesMirrorTheVerdict) {
  const std::string html = (scratch_ / "r.html").string();
  EXPECT_EQ(run_cli(rec("healthy") + base() + " --html " + html).code, 0);
  EXPECT_NE(slurp(html).find("data-outcome=\"pass\""), std::string::npos);
  const Cli slow = run_cli(rec("slow-gpu") + base() + " --html " + html);
  EXPECT_EQ(slow.code, 1);
  EXPECT_NE(slow.out.find("fail"), std::string::npos);  // the summary line
  EXPECT_NE(slurp(html).find("class=\"bar fail\" data-gpu=\"1\""), std::string::npos);
  EXPECT_EQ(run_cli(rec("unknown-class") + " --baselines-dir " + kData + "/baselines --html " + html).code,
            2);
  EXPECT_EQ(run_cli(rec("slow-gpu") + base() + " --before " + rec("healthy") + " --html " + html).code, 1);
  EXPECT_NE(slurp(html).find("class=\"bar before\""), std::string::npos);
  // As `gpuqual diff`: no baseline needed (2 % allowed drop); an explicit bad one is bad input.
  EXPECT_EQ(run_cli(rec("slow-gpu") + " --before " + rec("healthy") + " --baselines-dir " +
                    scratch_.string() + " --html " + html)
                .code,
            1);
  EXPECT_NE(slurp(html).find("allowed -2.0%"), std::string::npos);
  EXPECT_EQ(run_cli(rec("slow-gpu") + " --before " + rec("healthy") + " --baseline " +
                    (scratch_ / "nope.yaml").string() + " --html " + (scratch_ / "other.html").string())
                .code,
            3);
  // A pool of two nodes: node-b is the healthy record under another name.
  RunRecord b = read_record(rec("healthy"));
  b.node.hostname = b.node.k8s_node_name = "node-b";
  const std::string node_b = (scratch_ / "node-b.json").string();
  write_record(node_b, b);
  EXPECT_EQ(run_cli("--gate " + rec("healthy") + " " + node_b + base() + " --html " + html).code, 0);
  EXPECT_NE(slurp(html).find("<table class=\"heatmap\">"), std::string::npos);
  EXPECT_EQ(run_cli("--gate " + rec("slow-gpu") + " " + node_b + base() + " --html " + html).code, 1);
  const std::string pool = slurp(html);
  EXPECT_NE(pool.find("<tr data-node=\"node-a\">"), std::string::npos);
  EXPECT_NE(pool.find("<tr data-node=\"node-b\">"), std::string::npos);
  EXPECT_NE(pool.find("class=\"heat fail\""), std::string::npos);
  // The pool rules take gate's flags, so the report can show the verdict the pipeline's gate gave.
  EXPECT_EQ(
      run_cli("--gate " + rec("slow-gpu") + " " + node_b + base() + " --max-failed 1 --html " + html).code,
      0);
  EXPECT_EQ(
      run_cli("--gate " + rec("slow-gpu") + " " + node_b + base() + " --max-failed 50% --html " + html).code,
      0);
  EXPECT_EQ(
      run_cli("--gate " + rec("healthy") + " " + node_b + base() + " --expect-nodes 3 --html " + html).code,
      2);
}

TEST_F(ReportCli, BadInputIsExit3AndWritesNothing) {
  const std::string html = (scratch_ / "bad.html").string();
  EXPECT_EQ(run_cli((scratch_ / "missing.json").string() + base() + " --html " + html).code, 3);
  EXPECT_EQ(
      run_cli(rec("healthy") + " --baseline " + (scratch_ / "nope.yaml").string() + " --html " + html).code,
      3);
  std::ofstream(scratch_ / "a-file") << "x";
  EXPECT_EQ(run_cli(rec("healthy") + base() + " --html " + (scratch_ / "a-file/r.html").string()).code,
            3);                                            // not a directory
  EXPECT_EQ(run_cli(base() + " --html " + html).code, 3);  // neither RECORD nor --gate
  const Cli pool_flag = run_cli(rec("healthy") + base() + " --max-failed 1 --html " + html);
  EXPECT_EQ(pool_flag.code, 3);  // a pool rule on a one-record report
  EXPECT_NE(pool_flag.err.find("--max-failed: judges a pool"), std::string::npos) << pool_flag.err;
  EXPECT_EQ(run_cli("--gate " + rec("healthy") + base() + " --max-failed many --html " + html).code, 3);
  EXPECT_FALSE(fs::exists(html));
}

}  // namespace
