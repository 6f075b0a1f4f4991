// `gpuqual probe stack --root DIR [--handler NAME] [--format text|json]`: the `stack` check alone,
// on a host's tree: the known ways an upgrade breaks GPU containers (docs/stack-check.md).
// Exit 0 coherent (warnings allowed), 1 broken, 2 could not read (naming the path), 3 bad input.
#include "runner/commands/probe_stack.hpp"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>

#include "core/base/exit_code.hpp"
#include "core/base/text_case.hpp"
#include "core/base/text_escape.hpp"
#include "core/record/record_json.hpp"
#include "device/host/stack_tree_reader.hpp"
#include "suites/stack_check.hpp"

namespace gpuqual {
namespace {

struct StackProbeArgs {
  StackCheckParams params;
  std::string format = "text";
};

// Every line carries the host's file names and contents (a CDI spec's paths, a TOML error, a
// driver version string): each goes through print_line, as every command's terminal output does
// (core/base/text_escape.hpp), so a file named with ESC or OSC bytes cannot drive the terminal.
void print_text(const CheckResult& r, const HostStack& h) {
  auto out = [](const std::string& line) { print_line(stdout, line); };
  out(fmt::format("stack of {}", h.root));
  out(fmt::format("  driver loaded    {}", h.loaded_driver.value_or("(none)")));
  out(fmt::format("  running kernel   {}", h.running_kernel.value_or("(unknown)")));
  out(fmt::format("  cdi              {}", r.attributes.at("stack.cdi")));
  out(fmt::format("  runtime          {}", r.attributes.at("stack.runtime")));
  out(fmt::format("  reboot pending   {}", r.attributes.at("stack.reboot_pending")));
  for (const auto& u : h.unread) out(fmt::format("  [error] could not read {}: {}", u.path, u.problem));
  for (const auto& f : r.findings) {
    out(fmt::format("  [{}] {}: {}", to_string(f.severity), f.code, f.detail));
    if (!f.action.empty() && f.severity != Severity::info) out(fmt::format("         do: {}", f.action));
  }
}

int run_stack_probe(const StackProbeArgs& a) {
  HostStack h;
  const CheckResult r = run_stack_check(a.params, &h);
  if (a.format == "json") {
    fmt::print("{}\n", to_json(r).dump(2));
  } else {
    print_text(r, h);
  }
  print_line(stdout, fmt::format("gpuqual probe stack: {}{}", to_upper(to_string(r.status)),
                                 r.reason.empty() ? "" : " — " + r.reason));
  return exit_code_of(r.status);
}

}  // namespace

void add_stack_probe(CLI::App* probe, CommandAction& selected) {
  auto a = std::make_shared<StackProbeArgs>();
  CLI::App* st = probe->add_subcommand(
      "stack",
      "Read a host's tree for what breaks GPU containers after an upgrade: CDI specs, runtime handler, "
      "daemon-reload risk, Fabric Manager, kernel modules, reboot pending");
  if (const std::string host = host_root_from_env(); !host.empty()) a->params.root = host;
  st->add_option("--root", a->params.root,
                 "The host's root (default $GPUQUAL_HOST_ROOT, else /; in a Job, the host's root mounted "
                 "read-only by the host-root component)");
  st->add_option("--handler", a->params.handler,
                 "The runtime handler the RuntimeClass expects (default nvidia)");
  st->add_option("--format", a->format, "text or json")->check(CLI::IsMember({"text", "json"}));
  st->callback([a, &selected] { selected = [a] { return run_stack_probe(*a); }; });
}

}  // namespace gpuqual
