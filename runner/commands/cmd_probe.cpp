// `gpuqual probe container|telemetry|cleanup`: the platform probes of a suite, run once from a
// shell — the same code as the `container_probe` and `telemetry` checks.
//
//   gpuqual probe container --runtime docker|podman|nerdctl|docker-cli|cli --image IMAGE
//       [--gpus all|none|N] [--timeout S] [--expect-exit N] [--expect-output REGEX]
//       [--env K=V]... [--pull] [--socket PATH] [--cli-template FILE] [-- CMD ARGS...]
//   gpuqual probe telemetry [--url URL] [--series NAME]... [--gpu-uuid UUID]...
//   gpuqual probe cleanup --runtime ... [--run-id ID]
//   gpuqual probe storage [--path [NAME=]DIR]... [--size-mib N] [--min-free-gib G] [--site-file F]
//   gpuqual probe network [--resolve NAME]... [--connect HOST:PORT]... [--tls HOST:PORT]... [--url URL]...
//
// Exit codes as every judging command: 0 pass, 1 fail, 2 inconclusive (error/skip), 3 usage.
#include <fmt/format.h>
#include <signal.h>

#include <yaml-cpp/yaml.h>
#include <CLI/CLI.hpp>
#include <atomic>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>

#include "core/base/dotted_version.hpp"
#include "core/base/exit_code.hpp"
#include "core/base/input_error.hpp"
#include "core/base/json_input.hpp"
#include "core/base/text_case.hpp"
#include "core/record/record_json.hpp"
#include "device/node/inventory.hpp"
#include "probes/container/container_owner.hpp"
#include "probes/container/names.hpp"
#include "probes/container/probe_config.hpp"
#include "probes/container/self_probe.hpp"
#include "probes/network/network_check.hpp"
#include "probes/storage/storage_check.hpp"
#include "probes/telemetry/telemetry_check.hpp"
#include "runner/cli/command.hpp"
#include "runner/commands/probe_stack.hpp"
#include "runner/run/task_dirs.hpp"
#include "suites/container_probe.hpp"

namespace gpuqual {

namespace {

std::atomic<bool> g_probe_stop{false};
extern "C" void on_probe_stop(int) { g_probe_stop.store(true); }

// SIGTERM/SIGINT/SIGHUP end the probe early: the container is removed before we exit.
void install_probe_stop_handlers() {
  struct sigaction sa {};
  sa.sa_handler = on_probe_stop;
  sigemptyset(&sa.sa_mask);
  for (int sig : {SIGTERM, SIGINT, SIGHUP}) sigaction(sig, &sa, nullptr);
}

// Human output: attributes, metrics, findings; the one-line summary last.
int report(const CheckResult& r, const std::string& format, const std::string& what) {
  if (format == "json") {
    fmt::print("{}\n", to_json(r).dump(2));
  } else {
    fmt::print("{}\n", r.name);
    for (const auto& [k, v] : r.attributes) fmt::print("  {:<28} {}\n", k, v);
    for (const auto& m : r.metrics) fmt::print("  metric {:<40} {:.3f} {}\n", m.name, m.median, m.unit);
    for (const auto& g : r.per_gpu)
      fmt::print("  gpu {:<3} {}{}\n", g.gpu, to_string(g.status), g.reason.empty() ? "" : ": " + g.reason);
    for (const auto& f : r.findings) fmt::print("  [{}] {}: {}\n", to_string(f.severity), f.code, f.detail);
  }
  fmt::print("gpuqual probe {}: {}{}\n", what, to_upper(to_string(r.status)),
             r.reason.empty() ? "" : " — " + r.reason);
  return exit_code_of(r.status);
}

// Runtime flags shared by `container` and `cleanup`.
struct RuntimeFlags {
  std::string runtime = "docker";
  std::string socket;
  std::string gpu_style = "device-request";
  std::string cli_template;
};

void add_runtime_flags(CLI::App* sub, RuntimeFlags& f) {
  sub->add_option("--runtime", f.runtime,
                  "docker (Engine API over a unix socket), podman, nerdctl, docker-cli, cli")
      ->check(CLI::IsMember({"docker", "podman", "nerdctl", "docker-cli", "cli"}));
  sub->add_option(
      "--socket", f.socket,
      "Docker API socket (docker; also podman's service). Default $DOCKER_HOST or /var/run/docker.sock");
  sub->add_option("--gpu-style", f.gpu_style, "docker: how GPUs are requested")
      ->check(CLI::IsMember({"device-request", "cdi"}));
  sub->add_option("--cli-template", f.cli_template,
                  "CLI template file (JSON or YAML); for --runtime cli, or overrides a preset");
}

// YAML (or JSON, which is YAML) → JSON, strings and lists and maps only.
nlohmann::json yaml_to_json(const YAML::Node& n, const std::string& file) {
  switch (n.Type()) {
    case YAML::NodeType::Sequence: {
      nlohmann::json a = nlohmann::json::array();
      for (const auto& e : n) a.push_back(yaml_to_json(e, file));
      return a;
    }
    case YAML::NodeType::Map: {
      nlohmann::json o = nlohmann::json::object();
      for (const auto& kv : n) o[kv.first.as<std::string>()] = yaml_to_json(kv.second, file);
      return o;
    }
    case YAML::NodeType::Scalar:
      return n.as<std::string>();
    default:
      return nullptr;
  }
}

probes::RuntimeConfig runtime_config(const RuntimeFlags& f) {
  probes::RuntimeConfig rc;
  rc.kind = f.runtime;
  rc.socket = f.socket;
  rc.gpu_style = f.gpu_style;
  if (!f.socket.empty() && f.runtime != "docker")
    throw InputError("--socket", "", "only for --runtime docker");
  if (!f.cli_template.empty()) {
    if (f.runtime == "docker")
      throw InputError("--cli-template", "", "not for --runtime docker (the Engine API)");
    const std::string text = read_text_file(f.cli_template, 1u << 20);
    YAML::Node node;
    try {
      node = YAML::Load(text);
    } catch (const YAML::Exception& e) {
      throw InputError(f.cli_template, fmt::format("line {}", e.mark.line + 1), e.msg);
    }
    nlohmann::json doc = yaml_to_json(node, f.cli_template);
    if (f.runtime != "cli" && doc.is_object() && !doc.contains("preset")) doc["preset"] = f.runtime;
    rc.cli = probes::parse_cli_template(doc, f.cli_template, "$");
  } else if (f.runtime == "cli") {
    throw InputError("--cli-template", "", "--runtime cli needs a template file");
  }
  return rc;
}

struct ContainerArgs {
  RuntimeFlags rt;
  probes::ProbeSpec spec;
  std::string gpus = "none";
  std::string run_id;
  std::string format = "text";
  bool no_sweep = false;
  int max_output = 64 << 10;
  std::string tables_dir;
  std::string assume_driver, assume_cuda;
};

// What-if: judge the images' CUDA requirement as if the node had this driver (before an
// upgrade or a rollback). The container still runs on the real one.
void assume_driver(probes::CompatInputs& in, const std::string& driver, const std::string& cuda) {
  if (!driver.empty()) {
    const auto v = parse_driver_version(driver);
    if (!v)
      throw InputError("--assume-driver", "",
                       fmt::format("'{}' is not a driver version (e.g. 570.133.20)", driver));
    in.host.driver = v;
    in.host.driver_text = driver;
  }
  if (!cuda.empty()) {
    const auto v = DottedVersion::parse(cuda);
    if (!v)
      throw InputError("--assume-cuda", "", fmt::format("'{}' is not a CUDA version (e.g. 12.8)", cuda));
    in.host.cuda = v;
  }
  // Without a GPU list (a GPU-less machine) the requirement is still judged against the
  // assumed driver: one GPU whose brand and architecture are unknown (treated as satisfied).
  if (in.gpus.empty()) in.gpus.emplace_back();
  for (auto& g : in.gpus) {
    g.driver = in.host.driver;
    g.cuda = in.host.cuda;
  }
}

int run_container(ContainerArgs& a) {
  probes::ContainerProbeConfig config;
  config.runtime = runtime_config(a.rt);
  config.sweep_orphans = !a.no_sweep;
  config.tables_dir = a.tables_dir;
  const auto gpus = probes::parse_gpu_request(a.gpus);
  if (!gpus) throw InputError("--gpus", "", fmt::format("'{}' is not none, all or a number", a.gpus));
  a.spec.gpus = *gpus;
  a.spec.max_output = static_cast<std::size_t>(a.max_output);
  if (a.spec.name.empty()) {
    const std::string last =
        a.spec.image.substr(a.spec.image.rfind('/') == std::string::npos ? 0 : a.spec.image.rfind('/') + 1);
    a.spec.name = probes::slug(last.substr(0, last.find('@')));
  }
  if (a.spec.self_probe && !a.spec.command.empty())
    throw InputError("--self-probe", "", "runs gpuqual's own program in the container: give no command");
  for (const auto& kv : a.spec.env)
    if (kv.empty() || kv[0] == '=' || kv.find('=') == std::string::npos)
      throw InputError("--env", "", fmt::format("'{}' is not K=V", kv));
  const std::string problem = probes::validate_probe_spec(a.spec);
  if (!problem.empty()) throw InputError("--image/--expect-output", "", problem);
  config.probes.push_back(a.spec);

  probes::ProbeContext pc;
  pc.run_id = a.run_id.empty() ? probes::local_run_id() : a.run_id;
  pc.stop = &g_probe_stop;
  pc.self_probe_program = probes::find_container_probe_program();
  // The host's driver and GPUs: for the image's CUDA requirement and the GPU-less case.
  const Inventory inv = collect_inventory({});
  pc.host.compat = node_compat_inputs(a.tables_dir);
  if (!a.assume_driver.empty() || !a.assume_cuda.empty())
    assume_driver(pc.host.compat, a.assume_driver, a.assume_cuda);
  pc.host.has_gpus = !inv.gpus.empty();
  pc.host.no_gpu_reason = inv.gpu_unavailable_reason;
  install_probe_stop_handlers();
  CheckResult result = probes::run_container_probes(config, pc);
  if (!a.assume_driver.empty()) result.attributes["assumed_driver"] = a.assume_driver;
  if (!a.assume_cuda.empty()) result.attributes["assumed_cuda_driver"] = a.assume_cuda;
  return report(result, a.format, "container");
}

struct TelemetryArgs {
  probes::TelemetryConfig config;
  std::vector<std::string> series;
  std::string format = "text";
};

int run_telemetry_cmd(TelemetryArgs& a) {
  if (!a.series.empty()) a.config.series = a.series;
  if (a.config.url.rfind("http://", 0) != 0 && a.config.url.rfind("https://", 0) != 0)
    throw InputError("--url", "", fmt::format("'{}' is not an http:// or https:// URL", a.config.url));
  std::vector<GpuInfo> gpus;
  std::string reason;
  if (a.config.gpu_uuids.empty()) {
    const Inventory inv = collect_inventory({});
    gpus = inv.gpus;
    reason = inv.gpu_unavailable_reason;
  }
  install_probe_stop_handlers();
  return report(probes::run_telemetry(a.config, gpus, reason, &g_probe_stop), a.format, "telemetry");
}

struct StorageArgs {
  std::vector<std::string> paths;  // [NAME=]DIR
  std::optional<double> size_mib, min_free_gib, timeout_s;
  std::optional<int> fsync_samples;
  bool no_direct = false;
  std::string site_file;
  std::string format = "text";
};

// The flags become the check's parameters, so `probe storage` and the `storage` check read
// (and refuse) exactly the same things.
int run_storage_cmd(const StorageArgs& a) {
  nlohmann::json params = nlohmann::json::object();
  if (!a.site_file.empty()) params["site_file"] = a.site_file;
  if (a.size_mib) params["size_mib"] = *a.size_mib;
  if (a.min_free_gib) params["min_free_gib"] = *a.min_free_gib;
  if (a.timeout_s) params["timeout_s"] = *a.timeout_s;
  if (a.fsync_samples) params["fsync_samples"] = *a.fsync_samples;
  if (a.no_direct) params["direct"] = false;
  if (!a.paths.empty()) {
    params["paths"] = nlohmann::json::array();
    for (const auto& p : a.paths) {
      const auto eq = p.find('=');
      nlohmann::json entry = {{"path", eq == std::string::npos || p[0] == '/' ? p : p.substr(eq + 1)}};
      if (eq != std::string::npos && p[0] != '/') entry["name"] = p.substr(0, eq);
      params["paths"].push_back(entry);
    }
  }
  const probes::StorageConfig config = probes::parse_storage_params(params, "--path/--site-file");
  install_probe_stop_handlers();
  return report(probes::run_storage(config, &g_probe_stop), a.format, "storage");
}

struct NetworkArgs {
  std::vector<std::string> resolve, connect, tls, urls;
  std::vector<long> expect_status;
  std::string tls_name, ca_file, site_file;
  std::optional<double> timeout_s;
  std::optional<int> samples;
  std::string format = "text";
};

int run_network_cmd(const NetworkArgs& a) {
  nlohmann::json params = nlohmann::json::object();
  if (!a.site_file.empty()) params["site_file"] = a.site_file;
  if (a.timeout_s) params["timeout_s"] = *a.timeout_s;
  if (a.samples) params["samples"] = *a.samples;
  nlohmann::json eps = nlohmann::json::array();
  for (const auto& n : a.resolve) eps.push_back({{"resolve", n}});
  for (const auto& c : a.connect) eps.push_back({{"connect", c}});
  for (const auto& c : a.tls) {
    nlohmann::json e = {{"connect", c}, {"tls", true}};
    if (!a.tls_name.empty()) e["tls_name"] = a.tls_name;
    if (!a.ca_file.empty()) e["ca_file"] = a.ca_file;
    eps.push_back(e);
  }
  for (const auto& u : a.urls) {
    nlohmann::json e = {{"url", u}};
    if (!a.expect_status.empty()) e["expect_status"] = a.expect_status;
    if (!a.ca_file.empty()) e["ca_file"] = a.ca_file;
    eps.push_back(e);
  }
  if (!eps.empty()) params["endpoints"] = eps;
  const probes::NetworkConfig config =
      probes::parse_network_params(params, "--resolve/--connect/--tls/--url");
  install_probe_stop_handlers();
  return report(probes::run_network(config, &g_probe_stop), a.format, "network");
}

struct CleanupArgs {
  RuntimeFlags rt;
  std::string run_id;
};

int run_cleanup(CleanupArgs& a) {
  // Task directories of `gpuqual run`s killed with SIGKILL (runner/run/task_dirs.hpp).
  for (const auto& d : sweep_stale_task_dirs(task_dir_root())) fmt::print("removed {}\n", d);
  std::unique_ptr<probes::ContainerRuntime> runtime;
  try {
    runtime = probes::make_runtime(runtime_config(a.rt));
    runtime->version();
  } catch (const probes::RuntimeUnavailable& e) {
    fmt::print("gpuqual probe cleanup: ERROR — container runtime unavailable: {}\n", e.what());
    return kExitInconclusive;
  }
  const probes::SweepResult swept = a.run_id.empty() ? probes::sweep_orphaned_containers(*runtime)
                                                     : probes::remove_run_containers(*runtime, a.run_id);
  for (const auto& n : swept.removed) fmt::print("removed {}\n", n);
  for (const auto& n : swept.failed) fmt::print("not removed: {}\n", n);
  fmt::print("gpuqual probe cleanup: {} — {} removed, {} failed\n", swept.failed.empty() ? "PASS" : "ERROR",
             swept.removed.size(), swept.failed.size());
  return swept.failed.empty() ? kExitPass : kExitInconclusive;
}

// Each subcommand of `gpuqual probe`: its flags and its action.
void add_container_probe(CLI::App* probe, CommandAction& selected) {
  auto c = std::make_shared<ContainerArgs>();
  CLI::App* cont = probe->add_subcommand(
      "container",
      "Start IMAGE with a runtime, check exit code, output, GPU access and the image's CUDA requirement");
  add_runtime_flags(cont, c->rt);
  cont->add_option("--image", c->spec.image, "Image reference (present locally unless --pull)")->required();
  cont->add_option("--name", c->spec.name, "Probe name (container and metric names); default from the image");
  cont->add_option("--gpus", c->gpus, "GPUs to request: none, all or N");
  cont->add_option("--timeout", c->spec.timeout_s, "Seconds from start to exit before it is a timeout")
      ->check(CLI::Range(0.1, 86400.0));
  cont->add_option("--expect-exit", c->spec.expect_exit, "Expected exit code")->check(CLI::Range(0, 255));
  cont->add_option("--expect-output", c->spec.expect_output, "ECMAScript regex the output must contain");
  cont->add_option("--env", c->spec.env, "K=V for the container (repeatable)");
  cont->add_flag("--pull", c->spec.pull, "Pull the image when it is not present");
  cont->add_flag(
      "--self-probe", c->spec.self_probe,
      "Run gpuqual's program inside (mounted read-only): GPUs visible, CUDA inside, a tiny kernel per GPU");
  cont->add_option("--max-output", c->max_output, "Bytes of output kept and searched")
      ->check(CLI::Range(1, 64 << 20));
  cont->add_option(
          "--max-metric-lines", c->spec.max_metric_lines,
          "gpuqual-metric lines read from the output into container.<probe>.<name> metrics (0: none)")
      ->check(CLI::Range(0, 10000));
  cont->add_option("--run-id", c->run_id,
                   "Run id in the container name and label (default: host-pid-time-random)");
  cont->add_option("--tables-dir", c->tables_dir,
                   "Where cuda-compat.yaml is (default: the baselines directory)");
  cont->add_option("--assume-driver", c->assume_driver,
                   "What-if: judge the image's CUDA requirement against this driver version");
  cont->add_option("--assume-cuda", c->assume_cuda,
                   "What-if: ... and this driver CUDA version (cudaDriverGetVersion, e.g. 12.8)");
  cont->add_flag("--no-sweep", c->no_sweep, "Do not remove containers left by dead gpuqual processes first");
  cont->add_option("--format", c->format, "text or json")->check(CLI::IsMember({"text", "json"}));
  cont->add_option("command", c->spec.command,
                   "Command and arguments (after --), instead of the image's own");
  cont->callback([c, &selected] { selected = [c] { return run_container(*c); }; });
}

void add_telemetry_probe(CLI::App* probe, CommandAction& selected) {
  auto t = std::make_shared<TelemetryArgs>();
  CLI::App* tel =
      probe->add_subcommand("telemetry", "Scrape a Prometheus endpoint; every GPU must report every series");
  tel->add_option("--url", t->config.url, "Endpoint (default http://localhost:9400/metrics, dcgm-exporter)");
  tel->add_option("--series", t->series,
                  "Expected series (repeatable; default: dcgm-exporter's default counters)");
  tel->add_option("--gpu-uuid", t->config.gpu_uuids,
                  "GPU UUIDs to require (repeatable; default: the inventory's GPUs)");
  tel->add_option("--timeout", t->config.timeout_s, "Seconds for the scrape")->check(CLI::Range(0.1, 600.0));
  tel->add_option("--format", t->format, "text or json")->check(CLI::IsMember({"text", "json"}));
  tel->callback([t, &selected] { selected = [t] { return run_telemetry_cmd(*t); }; });
}

void add_storage_probe(CLI::App* probe, CommandAction& selected) {
  auto st = std::make_shared<StorageArgs>();
  CLI::App* stor = probe->add_subcommand(
      "storage",
      "Write, fsync, read back and verify a seeded file in each directory; mount, free space, fsync latency");
  stor->add_option("--path", st->paths,
                   "[NAME=]DIR to test (repeatable; NAME names the metrics, default from DIR)");
  stor->add_option("--size-mib", st->size_mib, "Test file size per path in MiB (default 1024)");
  stor->add_option("--min-free-gib", st->min_free_gib,
                   "Free space required beyond the test file, GiB (default 0)");
  stor->add_option("--fsync-samples", st->fsync_samples, "Timed fsyncs per path (default 20)");
  stor->add_option("--timeout", st->timeout_s,
                   "Seconds for each path's whole sequence (default 60); a hung mount is an error");
  stor->add_flag("--no-direct", st->no_direct,
                 "Buffered I/O only (default: O_DIRECT where the filesystem allows)");
  stor->add_option("--site-file", st->site_file,
                   "Site file whose storage: section lists the paths (docs/storage-network.md)");
  stor->add_option("--format", st->format, "text or json")->check(CLI::IsMember({"text", "json"}));
  stor->callback([st, &selected] { selected = [st] { return run_storage_cmd(*st); }; });
}

void add_network_probe(CLI::App* probe, CommandAction& selected) {
  auto nw = std::make_shared<NetworkArgs>();
  CLI::App* net = probe->add_subcommand(
      "network",
      "Resolve names, connect to HOST:PORT, verify TLS and HTTP(S) status of the endpoints jobs need");
  net->add_option("--resolve", nw->resolve, "DNS name to resolve (repeatable)");
  net->add_option("--connect", nw->connect, "HOST:PORT to open a TCP connection to (repeatable)");
  net->add_option("--tls", nw->tls,
                  "HOST:PORT to connect and TLS-handshake with, certificate verified (repeatable)");
  net->add_option("--tls-name", nw->tls_name, "Name the --tls certificates must carry (default: the host)");
  net->add_option("--ca-file", nw->ca_file,
                  "CA bundle for --tls and https:// URLs (default: the system store)");
  net->add_option("--url", nw->urls, "http(s):// URL to request (repeatable)");
  net->add_option("--expect-status", nw->expect_status,
                  "Accepted HTTP status for --url (repeatable; default 200-399)");
  net->add_option("--timeout", nw->timeout_s, "Seconds per attempt (default 5)");
  net->add_option("--samples", nw->samples, "Attempts per endpoint (default 3)");
  net->add_option("--site-file", nw->site_file,
                  "Site file whose network: section lists the endpoints (docs/storage-network.md)");
  net->add_option("--format", nw->format, "text or json")->check(CLI::IsMember({"text", "json"}));
  net->callback([nw, &selected] { selected = [nw] { return run_network_cmd(*nw); }; });
}

void add_cleanup_probe(CLI::App* probe, CommandAction& selected) {
  auto k = std::make_shared<CleanupArgs>();
  CLI::App* clean = probe->add_subcommand(
      "cleanup",
      "Remove probe containers left by dead gpuqual processes (or, with --run-id, all of one run)");
  add_runtime_flags(clean, k->rt);
  clean->add_option("--run-id", k->run_id, "Remove every container of this run, owners alive or not");
  clean->callback([k, &selected] { selected = [k] { return run_cleanup(*k); }; });
}

}  // namespace

void add_probe_command(CLI::App& app, CommandAction& selected) {
  CLI::App* probe = app.add_subcommand("probe",
                                       "Run one platform probe: a container image start, the GPU telemetry "
                                       "endpoint, storage paths, network endpoints");
  probe->require_subcommand(1);
  add_container_probe(probe, selected);
  add_telemetry_probe(probe, selected);
  add_storage_probe(probe, selected);
  add_network_probe(probe, selected);
  add_cleanup_probe(probe, selected);
  add_stack_probe(probe, selected);  // runner/commands/probe_stack.cpp
}

}  // namespace gpuqual
