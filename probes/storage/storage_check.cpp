#include "probes/storage/storage_check.hpp"

#include <fmt/format.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <random>

#include "core/base/json_fields.hpp"
#include "core/base/stats.hpp"
#include "core/record/metric_summary.hpp"
#include "probes/site_config.hpp"
#include "probes/slug.hpp"
#include "probes/storage/storage_files.hpp"
#include "probes/storage/storage_worker.hpp"

namespace gpuqual::probes {

namespace {

constexpr double kMiB = 1024.0 * 1024.0;
constexpr double kGiB = 1024.0 * kMiB;

struct Defaults {
  double size_mib = 1024;
  double min_free_gib = 0;
  int fsync_samples = 20;
  bool direct = true;
  double timeout_s = 60;
};

StoragePathSpec read_path(JsonObject& o, const Defaults& d) {
  StoragePathSpec s;
  s.path = o.nonempty_str("path");
  if (s.path.front() != '/') o.fail("path", fmt::format("'{}' is not an absolute path", s.path));
  s.name = o.str_or("name", slug(s.path));
  if (s.name.empty() ||
      s.name.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789_-") != std::string::npos)
    o.fail("name",
           fmt::format("'{}' is not a metric name part (lower-case letters, digits, '_', '-')", s.name));
  const double size_mib = o.opt_number("size_mib", 1, 1 << 20).value_or(d.size_mib);
  // O_DIRECT wants whole 4 KiB blocks: round the size up to one.
  s.size_bytes = (static_cast<std::uint64_t>(size_mib * kMiB) + 4095) / 4096 * 4096;
  s.min_free_bytes =
      static_cast<std::uint64_t>(o.opt_number("min_free_gib", 0, 1e9).value_or(d.min_free_gib) * kGiB);
  s.fsync_samples = static_cast<int>(o.opt_integer("fsync_samples", 1, 10000).value_or(d.fsync_samples));
  s.direct = o.opt_boolean("direct").value_or(d.direct);
  s.writable = o.opt_boolean("writable").value_or(true);
  s.timeout_s = o.opt_number("timeout_s", 0.1, 3600).value_or(d.timeout_s);
  o.finish();
  return s;
}

std::string action_for(StorageProblem p) {
  switch (p) {
    case StorageProblem::missing:
      return "the path is gone: check the mount (fstab, the PVC, the CSI driver's node plugin)";
    case StorageProblem::permission:
      return "check the directory's owner and mode, the pod's fsGroup/runAsUser, and SELinux/AppArmor labels";
    case StorageProblem::read_only:
      return "the filesystem is read-only: a remount after errors (dmesg), or a read-only mount option";
    case StorageProblem::no_space:
      return "free space or raise the quota; jobs writing checkpoints here will fail";
    case StorageProblem::io_error:
      return "the device or server returned an I/O error: check dmesg, the disk's SMART data or the file "
             "server";
    case StorageProblem::corrupt:
      return "data read back differs from what was written: drain the node and check the device, controller "
             "or server";
    case StorageProblem::none:
      break;
  }
  return "";
}

Metric one_value(const std::string& name, const std::string& unit, Direction d, double v) {
  return summarize_metric(name, unit, d, std::nullopt, {v});
}

std::uint64_t run_seed() {
  std::random_device rd;
  return (static_cast<std::uint64_t>(rd()) << 32) ^ rd() ^ 1;  // never 0
}

void record_path(CheckResult& r, const StoragePathSpec& spec, const StorageOutcome& o,
                 std::vector<std::string>& errors, std::vector<std::string>& failures) {
  const std::string k = "storage." + spec.name + ".";
  const StorageReport& rep = o.report;
  r.attributes[k + "path"] = spec.path;
  if (!rep.fs_type.empty()) r.attributes[k + "fs_type"] = rep.fs_type;
  if (!rep.mount_point.empty()) r.attributes[k + "mount_point"] = rep.mount_point;
  if (!rep.mount_options.empty()) r.attributes[k + "mount_options"] = rep.mount_options;
  if (!rep.source.empty()) r.attributes[k + "source"] = rep.source;
  if (rep.total_bytes > 0) {
    r.attributes[k + "free_bytes"] = std::to_string(rep.free_bytes);
    r.attributes[k + "total_bytes"] = std::to_string(rep.total_bytes);
  }
  if (!rep.io_mode.empty()) r.attributes[k + "io_mode"] = rep.io_mode;
  if (spec.writable)
    r.attributes[k + "size_bytes"] = std::to_string(spec.size_bytes);
  else
    r.attributes[k + "writable"] = "false (read-only expected: mount and free space only)";
  if (!rep.swept.empty()) r.attributes[k + "swept"] = fmt::format("{}", fmt::join(rep.swept, ","));
  if (!o.removal.empty()) r.attributes[k + "removal"] = o.removal;

  if (rep.write_s > 0 && rep.bytes > 0)
    r.metrics.push_back(
        one_value(k + "write_gbps", "GB/s", Direction::higher, rep.bytes / rep.write_s / 1e9));
  if (rep.read_s > 0 && rep.bytes > 0 && rep.problem != StorageProblem::corrupt)
    r.metrics.push_back(one_value(k + "read_gbps", "GB/s", Direction::higher, rep.bytes / rep.read_s / 1e9));
  if (!rep.fsync_ms.empty()) {
    r.metrics.push_back(summarize_metric(k + "fsync_ms", "ms", Direction::lower, std::nullopt, rep.fsync_ms));
    r.metrics.push_back(
        one_value(k + "fsync_p99_ms", "ms", Direction::lower, stats::percentile(rep.fsync_ms, 99)));
  }

  if (!o.error.empty()) {
    errors.push_back(fmt::format("storage {}: {}", spec.name, o.error));
    return;
  }
  if (rep.problem != StorageProblem::none) {
    Finding f{
        .code = fmt::format("storage.{}", to_string(rep.problem)),
        .severity = Severity::fail,
        .detail = fmt::format("{} ({}): {}", spec.name, spec.path, rep.detail),
        .action = action_for(rep.problem),
    };
    if (rep.problem == StorageProblem::corrupt) f.value = static_cast<double>(rep.mismatch.bad_bytes);
    failures.push_back(fmt::format("{}: {}", f.code, f.detail));
    r.findings.push_back(std::move(f));
  }
}

}  // namespace

StorageConfig parse_storage_params(const nlohmann::json& params, const std::string& origin) {
  const SiteParams site = resolve_site_params(params, "storage", origin);
  const std::string where =
      site.site_file_present ? fmt::format("{} (with {})", origin, site.site_file) : origin;
  JsonObject o(site.params, where, "$");
  Defaults d;
  d.size_mib = o.opt_number("size_mib", 1, 1 << 20).value_or(d.size_mib);
  d.min_free_gib = o.opt_number("min_free_gib", 0, 1e9).value_or(d.min_free_gib);
  d.fsync_samples = static_cast<int>(o.opt_integer("fsync_samples", 1, 10000).value_or(d.fsync_samples));
  d.direct = o.opt_boolean("direct").value_or(d.direct);
  d.timeout_s = o.opt_number("timeout_s", 0.1, 3600).value_or(d.timeout_s);
  StorageConfig c;
  c.total_timeout_s = o.opt_number("total_timeout_s", 0.1, 86400).value_or(c.total_timeout_s);
  c.site_file = site.site_file;
  c.site_file_present = site.site_file_present;
  c.paths = read_named_entries(o, "paths", where, [&](JsonObject& p) { return read_path(p, d); });
  o.finish();
  return c;
}

CheckResult run_storage(const StorageConfig& config, const std::atomic<bool>* stop) {
  CheckResult r;
  r.name = "storage";
  const auto t0 = std::chrono::steady_clock::now();
  record_site_file(r, config.site_file, config.site_file_present);
  if (config.paths.empty()) {
    r.status = Status::skip;
    r.reason_code = "not_configured";
    r.reason = config.site_file.empty() || config.site_file_present
                   ? "no storage path configured: the site names none"
                   : fmt::format("no storage path configured: no site file at {}", config.site_file);
    return r;
  }
  const std::uint64_t seed = run_seed();
  std::vector<std::string> errors, failures;
  for (StoragePathSpec spec : config.paths) {
    if (stop && stop->load()) {
      errors.push_back(fmt::format("storage {}: not run, the run is being stopped", spec.name));
      continue;
    }
    const double left =
        config.total_timeout_s - std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (left <= 0) {
      errors.push_back(fmt::format("storage {} ({}): not run, total_timeout_s {} s reached", spec.name,
                                   spec.path, config.total_timeout_s));
      continue;
    }
    spec.timeout_s = std::min(spec.timeout_s, left);
    if (spec.seed == 0) spec.seed = seed;
    record_path(r, spec, run_storage_worker(spec, stop), errors, failures);
  }
  r.duration_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!failures.empty()) {
    r.status = Status::fail;
    r.reason = fmt::format("{}", fmt::join(failures, "; "));
    if (!errors.empty()) r.reason += fmt::format("; {}", fmt::join(errors, "; "));
  } else if (!errors.empty()) {
    r.status = Status::error;
    r.reason = fmt::format("{}", fmt::join(errors, "; "));
  } else {
    r.status = Status::pass;
  }
  return r;
}

std::vector<std::string> storage_after_abort(const nlohmann::json& params) {
  std::vector<std::string> out;
  try {
    for (const auto& p : parse_storage_params(params, "storage params").paths)
      for (auto& line : sweep_stale_storage_files_bounded(p.path, 2.0))
        out.push_back(line.rfind("not swept", 0) == 0 ? line : "removed " + line);
  } catch (const std::exception& e) {
    out.push_back(fmt::format("not swept: {}", e.what()));
  }
  return out;
}

}  // namespace gpuqual::probes
