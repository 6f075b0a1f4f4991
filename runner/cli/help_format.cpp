#include "runner/cli/help_format.hpp"

#include <fmt/format.h>

#include <cstdio>
#include <map>
#include <memory>
#include <sstream>
#include <utility>
#include <vector>

namespace gpuqual {

namespace {

// Exit codes and an example per command path ("probe container"). The judging commands share
// the contract of docs/architecture.md "Exit codes"; the others say what their codes mean.
constexpr const char* kJudging = "Exit codes: 0 pass, 1 fail, 2 inconclusive, 3 usage or input error.";

struct HelpFooter {
  const char* exits;
  const char* example;
};

const std::map<std::string, HelpFooter>& footers() {
  static const std::map<std::string, HelpFooter> table = {
      {"", {kJudging, "gpuqual run --suite canary   (then: gpuqual help COMMAND)"}},
      {"run", {kJudging, "gpuqual run --suite canary --baseline auto -o results/node-1.json"}},
      {"list", {"Exit codes: 0 listed, 3 a suite file is broken.", "gpuqual list"}},
      {"compare", {kJudging, "gpuqual compare results/node-1.json --baseline auto"}},
      {"inventory",
       {"Exit codes: 0 CUDA can use the GPUs, 2 no usable GPU (reason printed), 3 bad input.",
        "gpuqual inventory --format json"}},
      {"diff", {kJudging, "gpuqual diff before.json after.json"}},
      {"gate", {kJudging, "gpuqual gate results/*.json --max-failed 1"}},
      {"observe",
       {kJudging,
        "gpuqual observe --prometheus http://prometheus:9090 --canary gpu-1 --control gpu-2,gpu-3 "
        "--window 2h --policy observe.yaml"}},
      {"baseline",
       {"Exit codes: 0 written, 2 too few usable records, 3 usage or input error.",
        "gpuqual baseline build results/*.json -o baselines/h200-sxm-141gb.yaml"}},
      {"baseline build",
       {"Exit codes: 0 written, 2 too few usable records, 3 usage or input error.",
        "gpuqual baseline build results/*.json -o baselines/h200-sxm-141gb.yaml"}},
      {"probe", {kJudging, "gpuqual probe container --runtime docker --image busybox -- true"}},
      {"probe container", {kJudging, "gpuqual probe container --runtime docker --image busybox -- true"}},
      {"probe telemetry", {kJudging, "gpuqual probe telemetry --url http://localhost:9400/metrics"}},
      {"probe stack",
       {"Exit codes: 0 coherent (warnings allowed), 1 broken, 2 could not read (the path named) or no GPU "
        "on the bus, 3 bad input.",
        "gpuqual probe stack --root /host --format json"}},
      {"probe cleanup",
       {"Exit codes: 0 everything stale removed, 2 the runtime is unavailable or something could not be "
        "removed, 3 usage error.",
        "gpuqual probe cleanup --runtime docker"}},
      {"nccl", {kJudging, "mpirun -np 2 gpuqual nccl -o results/nccl.json"}},
      {"report",
       {"Exit codes: as compare/diff/gate for the verdict shown; 3 usage or input error.",
        "gpuqual report compare results/node-1.json --html report.html"}},
      {"matrix",
       {"Exit codes: build and rollback 0 written, rollback 2 no known-good row; check 0 every class "
        "known-good and "
        "no rule broken, 1 a rule broken or a class known-bad, 2 a class never qualified the target; 3 usage "
        "or "
        "input error.",
        "gpuqual matrix build results/ -o matrix.yaml"}},
      {"matrix build",
       {"Exit codes: 0 written, 3 usage or input error.",
        "gpuqual matrix build results/ -o matrix.yaml --markdown matrix.md"}},
      {"matrix check",
       {"Exit codes: 0 every class is known-good on the target and no rule is broken, 1 a rule is broken or "
        "a class is "
        "known-bad on the target, 2 a class never qualified the target, 3 usage or input error.",
        "gpuqual matrix check --target target.yaml --matrix matrix.yaml"}},
      {"matrix rollback",
       {"Exit codes: 0 the target printed, 2 the class has no known-good row, 3 usage or input error.",
        "gpuqual matrix rollback --class h200-sxm-141gb --matrix matrix.yaml > rollback.yaml"}},
      {"plan",
       {"Exit codes: 0 every node is in a wave (or done), 2 some nodes must wait (the reasons are listed), 1 "
        "the "
        "policy cannot be met (a floor above what the class has), 3 usage or input error.",
        "gpuqual plan --nodes nodes.json --pods pods.json --pdbs pdbs.json --policy plan.yaml --format "
        "json"}},
      {"revalidate",
       {"Exit codes: 0 the selection is made (due nodes that wait are listed with why), 1 a class's floor is "
        "above what it has, 3 usage or input error.",
        "gpuqual revalidate --nodes nodes.json --pods pods.json --pdbs pdbs.json --policy plan.yaml "
        "--records results/ --max-age 7d --at-once 2"}},
      {"node-condition",
       {"Exit codes: 0 the patch (or condition) printed, or nothing for --exit-code 3 (the condition is left "
        "as it is), 3 usage or input error.",
        "gpuqual node-condition --exit-code 1 --summary /run/gpuqual/summary --verdict "
        "/run/gpuqual/verdict.json --node node.json --consecutive 2"}},
  };
  return table;
}

std::string command_path(const CLI::App* app) {
  std::vector<std::string> names;
  for (const CLI::App* a = app; a != nullptr && a->get_parent() != nullptr; a = a->get_parent()) {
    names.insert(names.begin(), a->get_name());
  }
  std::string path;
  for (const auto& n : names) path += (path.empty() ? "" : " ") + n;
  return path;
}

// CLI11's type name carries the validators' descriptions after ':' ("TEXT:{a,b}",
// "FLOAT:FLOAT in [0.1 - 86400]"); the first part is the type, the rest become words.
std::pair<std::string, std::vector<std::string>> split_type_name(const std::string& full) {
  std::vector<std::string> parts;
  std::string cur;
  int depth = 0;
  for (char c : full) {
    if (c == '{' || c == '[' || c == '(') ++depth;
    if (c == '}' || c == ']' || c == ')') --depth;
    if (c == ':' && depth == 0) {
      parts.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  parts.push_back(cur);
  std::string type = parts.front();
  parts.erase(parts.begin());
  return {type, parts};
}

// "{docker,podman}" -> "one of: docker, podman"; "FLOAT in [0.1 - 86400]" -> "range 0.1 - 86400".
std::string validator_words(const std::string& v) {
  if (v.size() >= 2 && v.front() == '{' && v.back() == '}') {
    std::string items = v.substr(1, v.size() - 2);
    std::string out;
    for (char c : items) out += c == ',' ? std::string(", ") : std::string(1, c);
    return "one of: " + out;
  }
  if (auto in = v.find(" in ["); in != std::string::npos && v.back() == ']') {
    return "range " + v.substr(in + 5, v.size() - in - 6);
  }
  return v;
}

void walk(CLI::App* app, const std::shared_ptr<HelpFormatter>& fmt) {
  app->formatter(fmt);
  for (CLI::Option* opt : app->get_options()) {
    // The value the bound variable holds now is the default; flags show none, and neither does
    // an option whose description already says what its default means ("default: one per CPU").
    const bool says_default = opt->get_description().find("default") != std::string::npos ||
                              opt->get_description().find("Default") != std::string::npos;
    if (opt->get_type_size() != 0 && opt->get_default_str().empty() && !says_default)
      opt->capture_default_str();
  }
  const auto& table = footers();
  if (auto it = table.find(command_path(app)); it != table.end()) {
    app->footer(fmt::format("{}\nExample: {}", it->second.exits, it->second.example));
  }
  for (CLI::App* sub : app->get_subcommands([](CLI::App*) { return true; })) walk(sub, fmt);
}

}  // namespace

std::string wrap_text(const std::string& text, std::size_t width, std::size_t indent,
                      std::size_t first_indent) {
  std::string out;
  std::istringstream lines(text);
  std::string line;
  bool first_line = true;
  while (std::getline(lines, line)) {
    // A line's own leading spaces are kept (indented lists in descriptions).
    const std::size_t lead = line.find_first_not_of(' ');
    const std::string own_indent = lead == std::string::npos ? "" : line.substr(0, lead);
    std::size_t col = first_line ? first_indent : indent;
    if (!first_line) out += "\n" + std::string(indent, ' ');
    out += own_indent;
    col += own_indent.size();
    std::istringstream words(line);
    std::string word;
    bool line_start = true;
    while (words >> word) {
      if (!line_start && col + 1 + word.size() > width) {
        out += "\n" + std::string(indent + own_indent.size(), ' ');
        col = indent + own_indent.size();
        line_start = true;
      }
      if (!line_start) {
        out += ' ';
        ++col;
      }
      out += word;
      col += word.size();
      line_start = false;
    }
    first_line = false;
  }
  return out;
}

namespace {

// A validator named like a type ("PCT", "N|P%", "C": the flag's own value syntax) stands in for
// CLI11's generic TEXT/INT/FLOAT in the option column instead of being repeated as a note.
bool is_syntax_name(const std::string& v) {
  if (v.empty()) return false;
  for (char c : v) {
    if (!((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '|' || c == '%' || c == '_')) return false;
  }
  return true;
}

bool generic_type(const std::string& t) {
  return t == "TEXT" || t == "INT" || t == "UINT" || t == "FLOAT" || t.empty();
}

// "range 1 - 1000000" and a default outside it: the default means "not given", not a value.
bool outside_range(const std::string& def, const std::vector<std::string>& notes) {
  for (const auto& n : notes) {
    double lo = 0, hi = 0, d = 0;
    if (std::sscanf(n.c_str(), "range %lf - %lf", &lo, &hi) == 2 &&
        std::sscanf(def.c_str(), "%lf", &d) == 1) {
      if (d < lo || d > hi) return true;
    }
  }
  return false;
}

}  // namespace

// The name, then spaces up to the description column; a name too wide for the column gets
// the description on the next line, indented to the column.
static std::string name_column(const std::string& name, std::size_t col) {
  if (name.size() + 1 >= col) return name + "\n" + std::string(col, ' ');
  return name + std::string(col - name.size(), ' ');
}

std::string HelpFormatter::make_option(const CLI::Option* opt, bool is_positional) const {
  std::string name = "  " + make_option_name(opt, is_positional);
  auto [type, validators] = split_type_name(opt->get_type_name());
  for (auto it = validators.begin(); it != validators.end();) {
    if (is_syntax_name(*it) && (generic_type(type) || *it == type)) {
      type = *it;
      it = validators.erase(it);
    } else {
      ++it;
    }
  }
  if (!is_positional && opt->get_type_size() != 0 && !type.empty()) name += " " + type;
  if (opt->get_expected_max() == CLI::detail::expected_max_vector_size) name += " ...";

  std::string desc = opt->get_description();
  std::vector<std::string> notes;
  if (opt->get_required()) notes.push_back("required");
  for (const auto& v : validators) {
    if (!v.empty()) notes.push_back(validator_words(v));
  }
  std::string def = opt->get_default_str();
  if (def.size() >= 2 && def.front() == '[' && def.back() == ']')
    def = def.substr(1, def.size() - 2);  // a vector's
  if (opt->get_type_size() != 0 && !def.empty() && !outside_range(def, notes))
    notes.push_back("default: " + def);
  if (!opt->get_envname().empty()) notes.push_back("env: " + opt->get_envname());
  if (!opt->get_needs().empty()) {
    std::string needs;
    for (const CLI::Option* o : opt->get_needs()) needs += (needs.empty() ? "" : ", ") + o->get_name();
    notes.push_back("needs " + needs);
  }
  if (!opt->get_excludes().empty()) {
    std::string excl;
    for (const CLI::Option* o : opt->get_excludes()) excl += (excl.empty() ? "" : ", ") + o->get_name();
    notes.push_back("not with " + excl);
  }
  if (!notes.empty()) {
    std::string joined;
    for (const auto& n : notes) joined += (joined.empty() ? "" : "; ") + n;
    desc += (desc.empty() ? "" : " ") + ("(" + joined + ")");
  }

  const std::size_t col = column_width_ + 2;
  std::string out = name_column(name, col);
  out += wrap_text(desc, kHelpWidth, col, col);
  return out + "\n";
}

std::string HelpFormatter::make_subcommand(const CLI::App* sub) const {
  const std::string name = "  " + sub->get_display_name();
  const std::size_t col = column_width_ + 2;
  std::string out = name_column(name, col);
  std::string desc = sub->get_description();  // one entry of a list: its own line breaks go
  for (char& c : desc) c = c == '\n' ? ' ' : c;
  return out + wrap_text(desc, kHelpWidth, col, col) + "\n";
}

std::string HelpFormatter::make_description(const CLI::App* app) const {
  const std::string desc = app->get_description();
  if (desc.empty()) return "";
  return wrap_text(desc, kHelpWidth, 0) + "\n";
}

std::string HelpFormatter::make_footer(const CLI::App* app) const {
  const std::string footer = app->get_footer();
  if (footer.empty()) return "";
  std::string out;
  std::istringstream lines(footer);
  for (std::string line; std::getline(lines, line);) out += wrap_text(line, kHelpWidth, 2) + "\n";
  return out;
}

void finish_help(CLI::App& app) { walk(&app, std::make_shared<HelpFormatter>()); }

}  // namespace gpuqual
