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
    case CompatRule::driver_reports_cuda: return "driver-reported CUDA version";
    case CompatRule::toolkit_table: return "toolkit/driver table (full compatibility)";
    case CompatRule::minor_version: return "minor-version compatibility";
    case CompatRule::forward_compat: return "forward compatibility (cuda-compat)";
    case CompatRule::too_old: return "driver too old";
    case CompatRule::unknown_release: return "CUDA release not in the table";
    case CompatRule::no_driver: return "no driver";
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
        throw InputError(origin, line_of(kv.first, path), "toolkit version must be X.Y.Z, found \"" + cuda_text + "\"");
      }
      const std::string driver_text = scalar(kv.second, origin, path);
      auto driver = parse_driver_version(driver_text);
      if (!driver) throw InputError(origin, line_of(kv.second, path), "\"" + driver_text + "\" is not a driver version");
      if (!t.releases.emplace(*cuda, *driver).second) throw InputError(origin, line_of(kv.first, path), "duplicate release");
      t.release_text[cuda->str()] = driver_text;
    }
    const YAML::Node minor = root["minor_version"];
    if (!minor || !minor.IsMap()) throw InputError(origin, "minor_version", "required mapping of CUDA major → minimum driver");
    for (const auto& kv : minor) {
      const std::string major_text = scalar(kv.first, origin, "minor_version");
      auto major = DottedVersion::parse(major_text);
      if (!major || major->parts.size() != 1) {
        throw InputError(origin, line_of(kv.first, "minor_version." + major_text), "expected a CUDA major version");
      }
      const std::string driver_text = scalar(kv.second, origin, "minor_version." + major_text);
      auto driver = DottedVersion::parse(driver_text);
      if (!driver || driver->major() < 100) {
        throw InputError(origin, line_of(kv.second, "minor_version." + major_text), "\"" + driver_text + "\" is not a driver version");
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

CompatDecision judge_cuda_on_driver(const CudaCompatTable& table, const DottedVersion& cuda, const HostDriver& host,
                                    bool forward_compat_available) {
  CompatDecision d;
  const std::string want = cuda.str();
  const auto full = table.full_minimum(cuda);
  const auto minor = table.minor_minimum(cuda.major());
  if (full) d.minimum_driver = *full;
  if (minor) d.minor_minimum_driver = *minor;
  const std::string driver_text = host.driver_text.empty() && host.driver ? host.driver->str() : host.driver_text;

  if (!host.driver && !host.cuda) {
    d.status = Status::skip;
    d.rule = CompatRule::no_driver;
    d.explanation = fmt::format("no NVIDIA driver found: CUDA {} cannot be judged{}", want,
                                full ? " (it needs driver >= " + *full + ")" : "");
    return d;
  }
  // 1. The table, when both the release and the driver version are known.
  if (full && host.driver && *host.driver >= *DottedVersion::parse(*full)) {
    d.status = Status::pass;
    d.rule = CompatRule::toolkit_table;
    d.explanation = fmt::format("driver {} >= {}, the minimum for CUDA {} (full compatibility)", driver_text, *full,
                                cuda.major_minor().str());
    const auto bundled = table.bundled_driver(cuda);
    if (bundled && *bundled != *full && *host.driver < *DottedVersion::parse(*bundled)) {
      d.explanation += fmt::format("; CUDA {} shipped with {}", want, *bundled);
    }
    return d;
  }
  // 2. The driver's own word on the CUDA version it supports.
  if (host.cuda && *host.cuda >= cuda.major_minor() && (!full || !host.driver)) {
    d.status = Status::pass;
    d.rule = CompatRule::driver_reports_cuda;
    d.explanation = fmt::format("the driver supports CUDA {} (cudaDriverGetVersion) >= {}", host.cuda->str(), want);
    return d;
  }
  // 3. Minor-version compatibility within the major release.
  if (minor && host.driver && *host.driver >= *DottedVersion::parse(*minor)) {
    d.status = Status::warn;
    d.rule = CompatRule::minor_version;
    d.explanation = fmt::format(
        "driver {} is below {} (full compatibility with CUDA {}) but >= {}, the CUDA {}.x minimum: runs with "
        "minor-version compatibility (no JIT of newer PTX; some APIs return cudaErrorCallRequiresNewerDriver)",
        driver_text, full ? *full : "the unknown minimum", want, *minor, cuda.major());
    return d;
  }
  // 4. Forward compatibility through cuda-compat libraries.
  if (forward_compat_available && host.driver) {
    d.status = Status::warn;
    d.rule = CompatRule::forward_compat;
    d.explanation = fmt::format(
        "driver {} is too old for CUDA {} natively{}; allowed only through forward compatibility (cuda-compat "
        "libraries, data-center GPUs, LTSB/production driver branch)",
        driver_text, want, full ? " (needs >= " + *full + ")" : "");
    return d;
  }
  // 5. Nothing allows it. With the release in the table, or the driver's own CUDA version below
  // it, or the driver below the major's minimum, that is a verdict; otherwise the table is
  // missing a row and gpuqual cannot judge.
  const bool driver_says_less = host.cuda && *host.cuda < cuda.major_minor();
  const bool below_major_minimum = minor && host.driver && *host.driver < *DottedVersion::parse(*minor);
  if (!full && !driver_says_less && !below_major_minimum) {
    d.status = Status::error;
    d.rule = CompatRule::unknown_release;
    d.explanation = fmt::format("CUDA {} is not in the compatibility table ({}): cannot judge driver {}", want,
                                table.origin, driver_text.empty() ? "unknown" : driver_text);
    return d;
  }
  d.status = Status::fail;
  d.rule = CompatRule::too_old;
  std::string needs;
  if (full) needs = ">= " + *full + " (full compatibility)";
  if (minor) needs += std::string(needs.empty() ? "" : " or ") + ">= " + *minor + " (minor-version compatibility, CUDA " +
                      std::to_string(cuda.major()) + ".x)";
  if (needs.empty()) needs = "a driver that supports CUDA " + want;
  d.explanation = fmt::format("driver {}{} is too old for CUDA {}: needs {}", driver_text.empty() ? "?" : driver_text,
                              host.cuda ? " (supports CUDA " + host.cuda->str() + ")" : "", want, needs);
  return d;
}

}  // namespace gpuqual
