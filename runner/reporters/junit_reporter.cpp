// JUnit XML, the format GitLab (artifacts:reports:junit) and Jenkins (junit step) read: one
// testsuite per judged node, one testcase per check × GPU. fail → <failure>, error → <error>,
// skip → <skipped>; warn passes with the warning in <system-out>. Every text goes through
// escape_xml (core/base/text_escape.hpp): characters XML 1.0 forbids (controls, U+FFFE/U+FFFF, bytes
// that are not UTF-8) are shown as escapes, so a hostile hostname or reason cannot break the file.
#include <fmt/format.h>

#include <set>

#include "core/base/text_escape.hpp"
#include "runner/reporters/report_format.hpp"
#include "runner/reporters/reporters.hpp"

namespace gpuqual {

namespace {

std::string xml(std::string_view s) { return escape_xml(s); }

struct Counts {
  std::size_t tests = 0, failures = 0, errors = 0, skipped = 0;
  double time = 0;
};

Counts count(const Verdict& v) {
  Counts c;
  std::set<std::string> timed;
  for (const auto& row : v.checks) {
    ++c.tests;
    if (row.status == Status::fail) ++c.failures;
    if (row.status == Status::error) ++c.errors;
    if (row.status == Status::skip) ++c.skipped;
    // GPUs of one check run in parallel: count each check's duration once.
    if (timed.insert(row.check).second) c.time += row.duration_s;
  }
  return c;
}

// What a reviewer needs under a failed testcase: the judged rows of that check × GPU that did not pass.
std::string details(const Verdict& v, const CheckRow& c) {
  std::string out;
  for (const auto& m : v.metrics) {
    if (m.check != c.check || m.gpu != c.gpu || m.mig_device != c.mig_device || m.status == Status::pass ||
        m.status == Status::skip)
      continue;
    out += fmt::format("{} {}: expected {} {}, observed {} {}, delta {}, allowed {}: {}\n", m.metric,
                       to_string(m.status), report::value(m.expected), m.unit, report::value(m.observed),
                       m.unit, report::delta(m.delta_pct), report::allowed(m), m.reason);
  }
  for (const auto& f : v.findings) {
    if (f.check != c.check || f.finding.gpu != c.gpu || f.finding.mig_device != c.mig_device ||
        f.status == Status::pass)
      continue;
    out += fmt::format("{} {}: {}{}\n", f.finding.code, to_string(f.status), f.reason,
                       f.finding.action.empty() ? "" : " (action: " + f.finding.action + ")");
  }
  return out.empty() ? c.reason : out;
}

void suite(std::string& out, const Verdict& v) {
  const Counts n = count(v);
  out += fmt::format(
      "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\" time=\"{:.3f}\" "
      "hostname=\"{}\">\n",
      xml(fmt::format("gpuqual {} {} {}", v.kind, v.hostname, v.hardware_class)), n.tests, n.failures,
      n.errors, n.skipped, n.time, xml(v.hostname));
  out += "    <properties>\n";
  auto prop = [&](const char* name, const std::string& value) {
    out += fmt::format("      <property name=\"{}\" value=\"{}\"/>\n", name, xml(value));
  };
  prop("outcome", std::string(to_string(v.outcome)));
  prop("exit_code", std::to_string(v.exit_code));
  prop("hardware_class", v.hardware_class);
  prop("driver", v.driver_version);
  prop("cuda", v.cuda_driver_version);
  prop("run_id", v.run_id);
  prop("baseline", v.baseline);
  prop("summary", v.summary);
  out += "    </properties>\n";
  for (const auto& c : v.checks) {
    // A slice's testcase carries its MIG device: one name per testcase (docs/mig.md).
    const std::string name =
        c.gpu ? fmt::format("{} gpu {}{}", c.check, *c.gpu, c.mig_device.empty() ? "" : " " + c.mig_device)
              : c.check + " node";
    const std::string head = fmt::format("    <testcase classname=\"{}\" name=\"{}\" time=\"{:.3f}\"",
                                         xml("gpuqual." + c.check), xml(name), c.duration_s);
    switch (c.status) {
      case Status::pass:
        out += head + "/>\n";
        break;
      case Status::warn:
        out += head + ">\n      <system-out>" + xml("warning: " + details(v, c)) +
               "</system-out>\n    </testcase>\n";
        break;
      case Status::fail:
        out += head +
               fmt::format(">\n      <failure message=\"{}\" type=\"fail\">{}</failure>\n    </testcase>\n",
                           xml(c.reason), xml(details(v, c)));
        break;
      case Status::error:
        out +=
            head + fmt::format(">\n      <error message=\"{}\" type=\"error\">{}</error>\n    </testcase>\n",
                               xml(c.reason), xml(details(v, c)));
        break;
      case Status::skip:
        out += head + fmt::format(">\n      <skipped message=\"{}\"/>\n    </testcase>\n", xml(c.reason));
        break;
    }
  }
  out += "  </testsuite>\n";
}

}  // namespace

std::string render_junit(const Verdict& v) {
  // `gpuqual gate` gives its verdict rows of its own, one per node (its compare verdict as the
  // message) and one per pool metric: one testsuite of those (its `nodes` are trimmed to what
  // did not pass, so suites made from them would lack their passing testcases). A verdict that
  // only carries node verdicts gets one testsuite per node.
  std::vector<const Verdict*> suites;
  if (v.nodes.empty() || (v.kind == "gate" && !v.checks.empty())) {
    suites.push_back(&v);
  } else {
    for (const auto& n : v.nodes) suites.push_back(&n);
  }
  Counts total;
  for (const Verdict* s : suites) {
    const Counts c = count(*s);
    total.tests += c.tests, total.failures += c.failures, total.errors += c.errors,
        total.skipped += c.skipped;
    total.time += c.time;
  }
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out += fmt::format(
      "<testsuites name=\"gpuqual\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\" "
      "time=\"{:.3f}\">\n",
      total.tests, total.failures, total.errors, total.skipped, total.time);
  for (const Verdict* s : suites) suite(out, *s);
  out += "</testsuites>\n";
  return out;
}

}  // namespace gpuqual
