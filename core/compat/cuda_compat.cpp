#include "core/compat/cuda_compat.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "core/base/input_error.hpp"
#include "core/base/json_input.hpp"

namespace gpuqual {

namespace {

std::string line_of(const YAML::Node& n, const std::string& path) {
  return n.Mark().is_null() ? path : path + " (line " + std::to_string(n.Mark().line + 1) + ")";
}

std::string scalar(const YAML::Node& n, const std::string& origin, const std::string& path) {
  if (!n.IsScalar()) throw InputError(origin, line_of(n, path), "expected a scalar");
  return n.Scalar();
}

}  // namespace

std::string_view to_string(CompatRule rule) {
  switch (rule) {
    case CompatRule::driver_reports_cuda:
      return "driver-reported CUDA version";
    case CompatRule::toolkit_table:
      return "toolkit/driver table (full compatibility)";
    case CompatRule::minor_version:
      return "minor-version compatibility";
    case CompatRule::forward_compat:
      return "forward compatibility (cuda-compat)";
    case CompatRule::too_old:
      return "driver too old";
    case CompatRule::unknown_release:
      return "CUDA release not in the table";
    case CompatRule::no_driver:
      return "no driver";
  }
  return "?";
}

std::optional<std::string> CudaCompatTable::full_minimum(const DottedVersion& cuda) const {
  const DottedVersion mm = cuda.major_minor();
  const DottedVersion next{{mm.major(), mm.minor() + 1}};
  for (const auto& [release, driver] : releases) {
    if (!(release < mm) && release < next) return release_text.at(release.str());  // lowest of X.Y: GA
  }
  return std::nullopt;
}

std::optional<std::string> CudaCompatTable::bundled_driver(const DottedVersion& cuda) const {
  const DottedVersion mm = cuda.major_minor();
  const DottedVersion next{{mm.major(), mm.minor() + 1}};
  std::optional<std::string> pick;
  for (const auto& [release, driver] : releases) {
    if (release < mm || !(release < next)) continue;
    if (!pick || release <= cuda) pick = release_text.at(release.str());
  }
  return pick;
}

std::optional<std::string> CudaCompatTable::minor_minimum(int cuda_major) const {
  auto it = minor_version_text.find(cuda_major);
  if (it == minor_version_text.end()) return std::nullopt;
  return it->second;
}

std::optional<DottedVersion> CudaCompatTable::newest_cuda_for(const DottedVersion& driver) const {
  std::optional<DottedVersion> best;
  for (const auto& [release, minimum] : releases) {
    if (minimum <= driver) best = release.major_minor();
  }
  return best;
}

CudaCompatTable parse_cuda_compat_yaml(const std::string& text, const std::string& origin) {
  CudaCompatTable t;
  t.origin = origin;
  try {
    const YAML::Node root = YAML::Load(text);
    if (!root.IsMap()) throw InputError(origin, "", "expected a mapping at the top level");
    for (const auto& kv : root) {
      const std::string key = scalar(kv.first, origin, "");
      if (key != "schema" && key != "source" && key != "releases" && key != "minor_version") {
        throw InputError(origin, line_of(kv.first, key), "unknown field \"" + key + "\"");
      }
    }
    if (!root["schema"] || scalar(root["schema"], origin, "schema") != "gpuqual.cuda-compat/v1") {
      throw InputError(origin, "schema", "expected \"gpuqual.cuda-compat/v1\"");
    }
    t.source = root["source"] ? scalar(root["source"], origin, "source") : "";
    if (t.source.empty()) throw InputError(origin, "source", "the table must say where its rows come from");
    const YAML::Node releases = root["releases"];
    if (!releases || !releases.IsMap() || releases.size() == 0) {
      throw InputError(origin, "releases", "required non-empty mapping of toolkit version → minimum driver");
    }
    for (const auto& kv : releases) {
      const std::string cuda_text = scalar(kv.first, origin, "releases");
      const std::string path = "releases." + cuda_text;
      auto cuda = DottedVersion::parse(cuda_text);
      if (!cuda || cuda->parts.size() != 3) {
        throw InputError(origin, line_of(kv.first, path),
                         "toolkit version must be X.Y.Z, found \"" + cuda_text + "\"");
      }
      const std::string driver_text = scalar(kv.second, origin, path);
      auto driver = parse_driver_version(driver_text);
      if (!driver)
        throw InputError(origin, line_of(kv.second, path), "\"" + driver_text + "\" is not a driver version");
      if (!t.releases.emplace(*cuda, *driver).second)
        throw InputError(origin, line_of(kv.first, path), "duplicate release");
      t.release_text[cuda->str()] = driver_text;
    }
    const YAML::Node minor = root["minor_version"];
    if (!minor || !minor.IsMap())
      throw InputError(origin, "minor_version", "required mapping of CUDA major → minimum driver");
    for (const auto& kv : minor) {
      const std::string major_text = scalar(kv.first, origin, "minor_version");
      auto major = DottedVersion::parse(major_text);
      if (!major || major->parts.size() != 1) {
        throw InputError(origin, line_of(kv.first, "minor_version." + major_text),
                         "expected a CUDA major version");
      }
      const std::string driver_text = scalar(kv.second, origin, "minor_version." + major_text);
      auto driver = DottedVersion::parse(driver_text);
      if (!driver || driver->major() < 100) {
        throw InputError(origin, line_of(kv.second, "minor_version." + major_text),
                         "\"" + driver_text + "\" is not a driver version");
      }
      t.minor_version[major->major()] = *driver;
      t.minor_version_text[major->major()] = driver_text;
    }
  } catch (const YAML::Exception& e) {
    throw InputError(origin, "line " + std::to_string(e.mark.line + 1), e.msg);
  }
  return t;
}

CudaCompatTable load_cuda_compat_table(const std::string& path) {
  return parse_cuda_compat_yaml(read_text_file(path, 1u << 20), path);
}

namespace {

// What each rule of judge_cuda_on_driver reads: the release, the host's driver and the table's
// minimums for the release.
struct CompatQuery {
  const CudaCompatTable& table;
  const DottedVersion& cuda;
  const HostDriver& host;
  std::string want;                  // the release as written
  std::optional<std::string> full;   // the driver the release needs for full compatibility
  std::optional<std::string> minor;  // the driver its major release needs (minor-version compat)
  std::string driver_text;           // the host's driver as printed
};

// No driver at all: nothing to judge the release against (skip).
bool no_driver(const CompatQuery& q, CompatDecision& d) {
  if (q.host.driver || q.host.cuda) return false;
  d.status = Status::skip;
  d.rule = CompatRule::no_driver;
  d.explanation = fmt::format("no NVIDIA driver found: CUDA {} cannot be judged{}", q.want,
                              q.full ? " (it needs driver >= " + *q.full + ")" : "");
  return true;
}

// 1. The table, when both the release and the driver version are known.
bool by_toolkit_table(const CompatQuery& q, CompatDecision& d) {
  if (!q.full || !q.host.driver || *q.host.driver < *DottedVersion::parse(*q.full)) return false;
  d.status = Status::pass;
  d.rule = CompatRule::toolkit_table;
  d.explanation = fmt::format("driver {} >= {}, the minimum for CUDA {} (full compatibility)", q.driver_text,
                              *q.full, q.cuda.major_minor().str());
  const auto bundled = q.table.bundled_driver(q.cuda);
  if (bundled && *bundled != *q.full && *q.host.driver < *DottedVersion::parse(*bundled)) {
    d.explanation += fmt::format("; CUDA {} shipped with {}", q.want, *bundled);
  }
  return true;
}

// 2. The driver's own word on the CUDA version it supports.
bool by_driver_reported_cuda(const CompatQuery& q, CompatDecision& d) {
  if (!q.host.cuda || *q.host.cuda < q.cuda.major_minor() || (q.full && q.host.driver)) return false;
  d.status = Status::pass;
  d.rule = CompatRule::driver_reports_cuda;
  d.explanation =
      fmt::format("the driver supports CUDA {} (cudaDriverGetVersion) >= {}", q.host.cuda->str(), q.want);
  return true;
}

// 3. Minor-version compatibility within the major release.
bool by_minor_version(const CompatQuery& q, CompatDecision& d) {
  if (!q.minor || !q.host.driver || *q.host.driver < *DottedVersion::parse(*q.minor)) return false;
  d.status = Status::warn;
  d.rule = CompatRule::minor_version;
  d.explanation = fmt::format(
      "driver {} is below {} (full compatibility with CUDA {}) but >= {}, the CUDA {}.x minimum: runs with "
      "minor-version compatibility (no JIT of newer PTX; some APIs return cudaErrorCallRequiresNewerDriver)",
      q.driver_text, q.full ? *q.full : "the unknown minimum", q.want, *q.minor, q.cuda.major());
  return true;
}

// 4. Forward compatibility through cuda-compat libraries.
bool by_forward_compat(const CompatQuery& q, bool forward_compat_available, CompatDecision& d) {
  if (!forward_compat_available || !q.host.driver) return false;
  d.status = Status::warn;
  d.rule = CompatRule::forward_compat;
  d.explanation = fmt::format(
      "driver {} is too old for CUDA {} natively{}; allowed only through forward compatibility (cuda-compat "
      "libraries, data-center GPUs, LTSB/production driver branch)",
      q.driver_text, q.want, q.full ? " (needs >= " + *q.full + ")" : "");
  return true;
}

// 5. Nothing allows it. With the release in the table, or the driver's own CUDA version below
// it, or the driver below the major's minimum, that is a verdict (too old); otherwise the table
// is missing a row and gpuqual cannot judge.
void nothing_allows(const CompatQuery& q, CompatDecision& d) {
  const bool driver_says_less = q.host.cuda && *q.host.cuda < q.cuda.major_minor();
  const bool below_major_minimum =
      q.minor && q.host.driver && *q.host.driver < *DottedVersion::parse(*q.minor);
  if (!q.full && !driver_says_less && !below_major_minimum) {
    d.status = Status::error;
    d.rule = CompatRule::unknown_release;
    d.explanation = fmt::format("CUDA {} is not in the compatibility table ({}): cannot judge driver {}",
                                q.want, q.table.origin, q.driver_text.empty() ? "unknown" : q.driver_text);
    return;
  }
  d.status = Status::fail;
  d.rule = CompatRule::too_old;
  std::string needs;
  if (q.full) needs = ">= " + *q.full + " (full compatibility)";
  if (q.minor)
    needs += std::string(needs.empty() ? "" : " or ") + ">= " + *q.minor +
             " (minor-version compatibility, CUDA " + std::to_string(q.cuda.major()) + ".x)";
  if (needs.empty()) needs = "a driver that supports CUDA " + q.want;
  d.explanation =
      fmt::format("driver {}{} is too old for CUDA {}: needs {}", q.driver_text.empty() ? "?" : q.driver_text,
                  q.host.cuda ? " (supports CUDA " + q.host.cuda->str() + ")" : "", q.want, needs);
}

}  // namespace

CompatDecision judge_cuda_on_driver(const CudaCompatTable& table, const DottedVersion& cuda,
                                    const HostDriver& host, bool forward_compat_available) {
  const CompatQuery q{table,
                      cuda,
                      host,
                      cuda.str(),
                      table.full_minimum(cuda),
                      table.minor_minimum(cuda.major()),
                      host.driver_text.empty() && host.driver ? host.driver->str() : host.driver_text};
  CompatDecision d;
  if (q.full) d.minimum_driver = *q.full;
  if (q.minor) d.minor_minimum_driver = *q.minor;
  // The rules in order; the first that decides is the verdict.
  if (no_driver(q, d) || by_toolkit_table(q, d) || by_driver_reported_cuda(q, d) || by_minor_version(q, d) ||
      by_forward_compat(q, forward_compat_available, d))
    return d;
  nothing_allows(q, d);
  return d;
}

}  // namespace gpuqual
