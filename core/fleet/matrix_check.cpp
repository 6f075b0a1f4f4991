#include "core/fleet/matrix_check.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <set>

#include "core/base/exit_code.hpp"
#include "core/base/input_error.hpp"
#include "core/compat/cuda_compat_forward.hpp"

namespace gpuqual {

namespace {

// The version a rule pins (exact) or starts from (minimum); a prefix pins only what it names.
std::optional<std::string> pinned(const std::map<std::string, ComponentRule>& t, const char* name) {
  auto it = t.find(name);
  if (it == t.end() || it->second.match == TargetMatch::absent) return std::nullopt;
  return it->second.value;
}

void check_cuda(const std::map<std::string, ComponentRule>& t, const std::optional<DottedVersion>& driver,
                const std::string& driver_text, std::optional<int> branch, const std::string& cc,
                const std::string& product, const PlatformRules& rules, RuleOutcome& out) {
  const std::string file = rules.cuda.origin;
  if (auto cuda = pinned(t, "cuda_driver_version"); cuda && driver) {
    const auto v = DottedVersion::parse(*cuda);
    const auto min = v ? rules.cuda.full_minimum(*v) : std::nullopt;
    if (!min) {
      out.notes.push_back(
          fmt::format("CUDA {} is not in {}: the driver's CUDA version is not checked", *cuda, file));
    } else if (*driver < *DottedVersion::parse(*min)) {
      out.broken.push_back(
          fmt::format("driver {} is below {}, the minimum for CUDA {} ({})", driver_text, *min, *cuda, file));
    }
  }
  if (auto rt = pinned(t, "cuda_runtime_version"); rt && driver) {
    const auto v = DottedVersion::parse(*rt);
    if (!v) return;
    // Forward compatibility for CUDA 13 (core/compat/cuda_compat_forward.hpp): an older LTSB/production
    // branch CUDA 13.0's images accept, on a data-center GPU CUDA 13 can build for (CC >= 7.5).
    const auto ccv = DottedVersion::parse(cc);
    const bool fc = v->major() == 13 && branch &&
                    std::find(kForwardCompatBranches.begin(), kForwardCompatBranches.end(), *branch) !=
                        kForwardCompatBranches.end() &&
                    forward_compat_product_supported(product) && ccv && *ccv >= DottedVersion{{7, 5}};
    HostDriver host;
    host.driver = driver;
    host.driver_text = driver_text;
    const CompatDecision d = judge_cuda_on_driver(rules.cuda, *v, host, fc);
    if (d.status == Status::fail) {
      out.broken.push_back(fmt::format("CUDA runtime {}: {} ({})", *rt, d.explanation, file));
    } else if (d.status == Status::warn || d.status == Status::error) {
      out.notes.push_back(fmt::format("CUDA runtime {}: {}", *rt, d.explanation));
    }
  }
}

// The target's driver against the first driver of an architecture or product. A prefix target
// ("570.") pins the branch only: it is too old when its branch is, and cannot be told within the
// minimum's own branch (said, not decided).
void check_minimum(std::optional<int> branch, const std::optional<DottedVersion>& driver,
                   const std::string& driver_text, const DottedVersion& min, const std::string& min_text,
                   const std::string& what, const std::string& source, const std::string& file,
                   RuleOutcome& out) {
  const bool too_old = driver ? *driver < min : *branch < min.major();
  if (too_old) {
    out.broken.push_back(fmt::format("driver {} is older than {}, the first for {} ({}, {})",
                                     driver ? driver_text : fmt::format("R{}", *branch), min_text, what,
                                     source, file));
  } else if (!driver && *branch == min.major() && min.parts.size() > 1) {
    out.notes.push_back(
        fmt::format("{} needs driver {} or later: the target's R{} prefix does not say which ({})", what,
                    min_text, *branch, file));
  }
}

void check_branch(std::optional<int> branch, const std::optional<DottedVersion>& driver,
                  const std::string& driver_text, const std::string& cc, const std::string& product,
                  const PlatformRules& rules, const std::string& as_of, RuleOutcome& out) {
  const std::string file = rules.branches.origin;
  const DriverBranch* b = rules.branches.find(*branch);
  if (!b) {
    out.notes.push_back(fmt::format("R{} is not in {}: its kind and end of life are unknown", *branch, file));
  } else {
    if (b->kind == BranchKind::new_feature)
      out.notes.push_back(fmt::format("R{} is a new-feature branch: short-lived, no fixes after release ({})",
                                      *branch, file));
    if (b->kind == BranchKind::unconfirmed || !b->kind_confirmed)
      out.notes.push_back(
          fmt::format("R{}'s branch kind is not confirmed by an NVIDIA source ({})", *branch, file));
    std::vector<std::string> past, future;
    for (const auto& e : b->end_of_life) {
      const std::string said = e.listed ? fmt::format("listed as end of life by {}", e.source)
                               : e.none ? fmt::format("no end-of-life date per {}", e.source)
                                        : fmt::format("{} per {}", e.date, e.source);
      (e.reached(as_of) ? past : future).push_back(said);
    }
    if (b->end_of_life.empty()) {
      out.notes.push_back(fmt::format("R{}'s end of life is not confirmed ({})", *branch, file));
    } else if (future.empty()) {
      out.broken.push_back(fmt::format("R{} ({}) is end of life on {}: {} ({})", *branch, to_string(b->kind),
                                       as_of, fmt::join(past, "; "), file));
    } else if (!past.empty()) {
      out.notes.push_back(fmt::format("sources disagree whether R{} is end of life on {}: {} vs {} ({})",
                                      *branch, as_of, fmt::join(past, "; "), fmt::join(future, "; "), file));
    }
  }
  if (cc.empty()) {
    out.notes.push_back(
        "the class's compute capability is not known (no matrix row): driver branch vs architecture not "
        "checked");
    return;
  }
  const Architecture* a = rules.branches.for_compute_capability(cc);
  if (!a) {
    out.notes.push_back(fmt::format(
        "compute capability {} is not in {}: driver branch vs architecture not checked", cc, file));
    return;
  }
  if (a->last_branch && *branch > *a->last_branch) {
    out.broken.push_back(
        fmt::format("R{} dropped {} (compute capability {}): R{} is its last branch ({}, {})", *branch,
                    a->name, cc, *a->last_branch, a->source, file));
  }
  const std::string arch_name = fmt::format("{} (compute capability {})", a->name, cc);
  if (a->min_driver)
    check_minimum(branch, driver, driver_text, *a->min_driver, a->min_driver_text, arch_name, a->source, file,
                  out);
  // A later minimum for this product alone (docs/matrix.md: per product where the source says so).
  if (const ProductMinimum* p = a->product(product))
    check_minimum(branch, driver, driver_text, p->min_driver, p->min_driver_text,
                  fmt::format("{} ({})", p->name, arch_name), p->source, file, out);
}

void check_operator(const std::map<std::string, ComponentRule>& t,
                    const std::optional<std::string>& driver_exact, const PlatformRules& rules,
                    RuleOutcome& out) {
  const GpuOperatorTable& op = rules.gpu_operator;
  const auto version = pinned(t, "gpu_operator");
  const auto k8s = pinned(t, "kubernetes");
  if (!version) {
    if (k8s)
      out.notes.push_back(
          "the target names kubernetes but no gpu_operator: the Operator's Kubernetes range is not checked");
    return;
  }
  const OperatorRelease* rel = op.find(*version);
  const std::string state = op.support_state(*version);
  if (state == "end-of-life") {
    out.broken.push_back(fmt::format(
        "GPU Operator {} is end of life (only {}.x is supported and {}.x deprecated as of {}, {}; {})",
        *version, op.supported, op.deprecated, op.as_of, op.lifecycle_source, op.origin));
  } else if (state == "deprecated") {
    out.notes.push_back(fmt::format("GPU Operator {} is deprecated: critical and CVE fixes only ({}; {})",
                                    *version, op.lifecycle_source, op.origin));
  }
  if (!rel) {
    out.notes.push_back(
        fmt::format("GPU Operator {} is not in {}: its Kubernetes range and default driver are unknown",
                    *version, op.origin));
    return;
  }
  if (k8s) {
    const auto kv = DottedVersion::parse(without_v(*k8s));
    if (!kv) {
      out.notes.push_back(
          fmt::format("kubernetes \"{}\" is not a version: the Operator's range is not checked", *k8s));
    } else {
      const DottedVersion minor = kv->major_minor();
      std::vector<std::string> in, outside;
      for (const auto& r : rel->kubernetes)
        (minor >= r.min && minor <= r.max ? in : outside).push_back(fmt::format("{} ({})", r.text, r.source));
      if (in.empty()) {
        out.broken.push_back(fmt::format("GPU Operator {} supports Kubernetes {}, not {} ({})", rel->version,
                                         fmt::join(outside, " / "), *k8s, op.origin));
      } else if (!outside.empty()) {
        out.notes.push_back(fmt::format(
            "sources disagree whether GPU Operator {} supports Kubernetes {}: yes per {}, no per {} ({})",
            rel->version, minor.str(), fmt::join(in, "; "), fmt::join(outside, "; "), op.origin));
      }
    }
  }
  if (driver_exact && *driver_exact != rel->default_driver) {
    out.notes.push_back(fmt::format(
        "GPU Operator {} deploys driver {} by default; the target pins {} (set the chart's driver.version)",
        rel->version, rel->default_driver, *driver_exact));
  }
}

std::string joined(const std::vector<std::string>& v) { return fmt::format("{}", fmt::join(v, "; ")); }

}  // namespace

PlatformRules load_platform_rules(const std::string& dir) {
  namespace fs = std::filesystem;
  auto path = [&](const char* name) {
    const std::string p = (fs::path(dir) / name).string();
    if (!fs::exists(p)) throw InputError(p, "", "rule table not found (is --baselines-dir right?)");
    return p;
  };
  PlatformRules r;
  r.cuda = load_cuda_compat_table(path(kCudaCompatFile));
  r.branches = load_driver_branches(path(kDriverBranchesFile));
  r.gpu_operator = load_gpu_operator_table(path(kGpuOperatorFile));
  return r;
}

RuleOutcome check_rules(const std::map<std::string, ComponentRule>& t, const std::string& cc,
                        const std::string& product, const PlatformRules& rules, const std::string& as_of) {
  RuleOutcome out;
  std::optional<DottedVersion> driver;
  std::string driver_text;
  std::optional<std::string> driver_exact;
  std::optional<int> branch;
  if (auto it = t.find("driver_version"); it != t.end() && it->second.match != TargetMatch::absent) {
    driver_text = it->second.value;
    branch = driver_branch_of(driver_text);
    if (it->second.match != TargetMatch::prefix) driver = DottedVersion::parse(driver_text);
    if (it->second.match == TargetMatch::exact) driver_exact = driver_text;
  }
  if (!branch) out.notes.push_back("the target pins no driver_version: the driver rules are not checked");
  check_cuda(t, driver, driver_text, branch, cc, product, rules, out);
  if (branch) check_branch(branch, driver, driver_text, cc, product, rules, as_of, out);
  check_operator(t, driver_exact, rules, out);
  return out;
}

bool row_on_target(const MatrixRow& row, const std::map<std::string, ComponentRule>& rules) {
  for (const auto& [name, rule] : rules) {
    const std::string* have = row.component(name);
    // absent: the row must not state it (a rollback target never matches a row that adds one).
    if (rule.match == TargetMatch::absent) {
      if (have) return false;
      continue;
    }
    if (!have) return false;
    if (name == "vbios") {
      // Every GPU's VBIOS (the row joins distinct values with ",") must match.
      std::size_t from = 0;
      for (;;) {
        const std::size_t comma = have->find(',', from);
        if (!component_matches(
                rule, have->substr(from, comma == std::string::npos ? std::string::npos : comma - from)))
          return false;
        if (comma == std::string::npos) break;
        from = comma + 1;
      }
      continue;
    }
    if (!component_matches(rule, *have)) return false;
  }
  return true;
}

MatrixCheck check_target(const Target& target, const Matrix* matrix, const PlatformRules& rules,
                         const std::vector<std::string>& classes, const std::string& as_of) {
  std::set<std::string> wanted(classes.begin(), classes.end());
  if (wanted.empty()) {
    if (matrix) {
      for (const auto& r : matrix->rows) wanted.insert(r.hardware_class);
    }
    for (const auto& [slug, rules_] : target.classes) wanted.insert(slug);
  }
  MatrixCheck out;
  if (wanted.empty()) wanted.insert("");  // no class anywhere: the rules alone
  int worst = kExitPass;
  std::size_t checked = 0;
  for (const std::string& slug : wanted) {
    ClassCheck c;
    c.hardware_class = slug.empty() ? "(every class)" : slug;
    const auto t = target.rules_for(slug);
    if (t.empty()) {
      // A target with rules only under `classes:` says nothing about the other classes: every row
      // would match it. Said, and left out of the exit code.
      c.state = "not-targeted";
      c.exit_code = kExitPass;
      c.line = fmt::format("{}: not checked: the target names no component for this class", c.hardware_class);
      out.classes.push_back(std::move(c));
      continue;
    }
    ++checked;
    std::string cc, product;
    std::vector<const MatrixRow*> on;
    if (matrix) {
      for (const auto& r : matrix->rows) {
        if (r.hardware_class != slug) continue;
        if (cc.empty()) cc = r.compute_capability;
        if (product.empty()) product = r.gpu_product;
        if (row_on_target(r, t)) on.push_back(&r);
      }
    }
    c.rules = check_rules(t, cc, product, rules, as_of);
    auto with = [&](MatrixState s) {
      return std::find_if(on.begin(), on.end(), [&](const MatrixRow* r) { return r->state == s; });
    };
    std::string why;
    if (auto it = with(MatrixState::known_bad); it != on.end()) {
      c.state = "known-bad";
      why = (*it)->why;
    } else if (auto g = with(MatrixState::known_good); g != on.end()) {
      c.state = "known-good";
      why = (*g)->why;
    } else if (!on.empty()) {
      c.state = std::string(to_string(on.front()->state));
      why = on.front()->why;
    } else {
      c.state = "never-qualified";
      why = matrix ? fmt::format("no row of {} is on the target",
                                 matrix->origin.empty() ? "the matrix" : matrix->origin)
                   : "no matrix given";
    }
    if (!c.rules.broken.empty() || c.state == "known-bad") {
      c.exit_code = kExitFail;
    } else if (c.state != "known-good") {
      c.exit_code = kExitInconclusive;
    } else {
      c.exit_code = kExitPass;
    }
    c.line = fmt::format("{}: {}: {}", c.hardware_class, c.state, why);
    c.line += c.rules.broken.empty() ? "; rules: none broken" : "; rule broken: " + joined(c.rules.broken);
    if (!c.rules.notes.empty()) c.line += "; note: " + joined(c.rules.notes);
    // 1 outranks 2 outranks 0.
    if (c.exit_code == kExitFail || (c.exit_code == kExitInconclusive && worst == kExitPass))
      worst = c.exit_code;
    out.classes.push_back(std::move(c));
  }
  out.exit_code = checked == 0 ? kExitInconclusive : worst;
  return out;
}

}  // namespace gpuqual
