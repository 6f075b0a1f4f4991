#include "core/compat/cuda_compat_require.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/base/input_error.hpp"
#include "core/base/text_case.hpp"

namespace gpuqual {

namespace {

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  while (start <= s.size()) {
    const std::size_t pos = s.find(sep, start);
    out.push_back(s.substr(start, pos == std::string_view::npos ? std::string_view::npos : pos - start));
    if (pos == std::string_view::npos) break;
    start = pos + 1;
  }
  return out;
}

RequireCondition parse_condition(std::string_view text, const std::string& origin, const std::string& where) {
  if (text.empty()) throw InputError(origin, where, "empty condition (stray comma?)");
  const std::size_t op_pos = text.find_first_of("=!<>");
  if (op_pos == std::string_view::npos || op_pos == 0) {
    throw InputError(origin, where, fmt::format("'{}' is not <property><op><value>", text));
  }
  RequireCondition c;
  c.text = std::string(text);
  c.property = to_lower(std::string(text.substr(0, op_pos)));
  std::string_view rest = text.substr(op_pos);
  struct OpText {
    std::string_view s;
    RequireOp op;
  };
  // Longest operators first, so "<=" is not read as "<" followed by "=...".
  static constexpr OpText ops[] = {{"!=", RequireOp::ne}, {"<=", RequireOp::le}, {">=", RequireOp::ge},
                                   {"=", RequireOp::eq},  {"<", RequireOp::lt},  {">", RequireOp::gt}};
  bool found = false;
  for (const auto& o : ops) {
    if (rest.starts_with(o.s)) {
      c.op = o.op;
      c.value = std::string(rest.substr(o.s.size()));
      found = true;
      break;
    }
  }
  if (!found) throw InputError(origin, where, fmt::format("'{}': unknown operator", text));
  if (c.value.empty()) throw InputError(origin, where, fmt::format("'{}': no value", text));
  if (c.property == "brand") {
    if (c.op != RequireOp::eq && c.op != RequireOp::ne) {
      throw InputError(origin, where, fmt::format("'{}': brand takes only = and !=", text));
    }
  } else if (c.property == "cuda" || c.property == "driver" || c.property == "arch") {
    if (!DottedVersion::parse(c.value)) {
      throw InputError(origin, where,
                       fmt::format("'{}': '{}' is not a version (digits and dots)", text, c.value));
    }
  } else {
    // libnvidia-container refuses the whole expression ("invalid expression").
    throw InputError(
        origin, where,
        fmt::format("'{}': unknown property '{}' (cuda, driver, arch, brand)", text, c.property));
  }
  return c;
}

bool compare(const DottedVersion& have, RequireOp op, const DottedVersion& want) {
  const auto c = have <=> want;
  switch (op) {
    case RequireOp::eq:
      return c == 0;
    case RequireOp::ne:
      return c != 0;
    case RequireOp::lt:
      return c < 0;
    case RequireOp::le:
      return c <= 0;
    case RequireOp::gt:
      return c > 0;
    case RequireOp::ge:
      return c >= 0;
  }
  return false;
}

bool holds(const RequireCondition& c, const RequireFacts& f, bool have_gpu) {
  if (c.property == "brand") {
    if (!have_gpu || !f.brand) return true;
    const bool same = to_lower(*f.brand) == to_lower(c.value);
    return c.op == RequireOp::eq ? same : !same;
  }
  const std::optional<DottedVersion>* have = nullptr;
  if (c.property == "cuda")
    have = &f.cuda;
  else if (c.property == "driver")
    have = &f.driver;
  else
    have = &f.arch;
  if (c.property == "arch" && !have_gpu) return true;
  if (!*have) return true;  // unknown: the toolkit lets it pass
  return compare(**have, c.op, *DottedVersion::parse(c.value));
}

bool term_holds(const RequireTerm& t, const RequireFacts& f, bool have_gpu) {
  return std::all_of(t.conditions.begin(), t.conditions.end(),
                     [&](const auto& c) { return holds(c, f, have_gpu); });
}

}  // namespace

std::string_view to_string(RequireOp op) {
  switch (op) {
    case RequireOp::eq:
      return "=";
    case RequireOp::ne:
      return "!=";
    case RequireOp::lt:
      return "<";
    case RequireOp::le:
      return "<=";
    case RequireOp::gt:
      return ">";
    case RequireOp::ge:
      return ">=";
  }
  return "?";
}

RequireExpression parse_nvidia_require(std::string_view text, const std::string& origin) {
  RequireExpression e;
  e.text = std::string(text);
  int term_no = 0;
  std::size_t pos = 0;
  while (pos < text.size()) {
    // Terms are separated by runs of blanks (the images use single spaces).
    while (pos < text.size() && (text[pos] == ' ' || text[pos] == '\t')) ++pos;
    if (pos >= text.size()) break;
    std::size_t end = text.find_first_of(" \t", pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view term_text = text.substr(pos, end - pos);
    pos = end;
    ++term_no;
    RequireTerm t;
    t.text = std::string(term_text);
    int cond_no = 0;
    for (std::string_view c : split(term_text, ',')) {
      ++cond_no;
      t.conditions.push_back(
          parse_condition(c, origin, fmt::format("term {} condition {}", term_no, cond_no)));
    }
    e.terms.push_back(std::move(t));
  }
  if (e.terms.empty()) throw InputError(origin, "", "empty requirement expression");
  return e;
}

RequireOutcome evaluate_require(const RequireExpression& expr, const std::vector<RequireFacts>& gpus) {
  RequireOutcome out;
  out.first_term = expr.terms.empty() ? "" : expr.terms.front().text;
  const bool have_gpu = !gpus.empty();
  const std::vector<RequireFacts> subjects = have_gpu ? gpus : std::vector<RequireFacts>{RequireFacts{}};
  // Every GPU must satisfy some term. Report the first term that holds for all of them (the
  // usual case: one kind of GPU per node); a node where GPUs need different terms still passes.
  bool all_gpus_ok = true;
  for (const auto& f : subjects) {
    bool any = false;
    for (const auto& t : expr.terms) {
      if (term_holds(t, f, have_gpu)) {
        any = true;
        break;
      }
    }
    all_gpus_ok = all_gpus_ok && any;
  }
  if (!all_gpus_ok) {
    out.explanation = "unsatisfied condition: " + out.first_term;
    return out;
  }
  out.satisfied = true;
  for (std::size_t i = 0; i < expr.terms.size(); ++i) {
    const auto& t = expr.terms[i];
    if (std::all_of(subjects.begin(), subjects.end(),
                    [&](const auto& f) { return term_holds(t, f, have_gpu); })) {
      out.term = static_cast<int>(i);
      out.term_text = t.text;
      out.via_branch_clause = std::none_of(t.conditions.begin(), t.conditions.end(),
                                           [](const auto& c) { return c.property == "cuda"; }) &&
                              std::any_of(t.conditions.begin(), t.conditions.end(),
                                          [](const auto& c) { return c.property == "driver"; });
      break;
    }
  }
  out.explanation =
      out.term >= 0 ? "satisfied by '" + out.term_text + "'" : "satisfied (GPUs match different terms)";
  return out;
}

}  // namespace gpuqual
