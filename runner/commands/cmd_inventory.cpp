// `gpuqual inventory [--format table|json] [--class SLUG] [--labels-file PATH]`: what this node
// is (node facts, GPU stack versions, GPUs, hardware class), the same facts every run record
// carries. Exit code: 0 when CUDA can use at least one GPU, 2 when it cannot (no GPU, no driver,
// driver too old: the reason is printed), 3 for bad flags or an unreadable labels file.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "core/base/exit_code.hpp"
#include "core/base/text_escape.hpp"
#include "core/record/record_json.hpp"
#include "device/node/inventory.hpp"
#include "runner/cli/class_option.hpp"
#include "runner/cli/command.hpp"
#include "runner/cli/stack_options.hpp"

namespace gpuqual {

namespace {

struct InventoryArgs {
  std::string format = "table";
  InventoryOptions options;
  StackFlags stack;
};

// The inventory in the run record's own JSON shape (node, hardware_class, gpus), so a reader of
// records reads this too; plus why CUDA could not use the GPUs.
nlohmann::json inventory_json(const Inventory& inv) {
  RunRecord r;
  r.node = inv.node;
  r.hardware_class = inv.hardware_class;
  r.gpus = inv.gpus;
  nlohmann::json rec = to_json(r);
  return nlohmann::json{{"schema", "gpuqual.inventory/v1"},
                        {"node", rec["node"]},
                        {"hardware_class", rec["hardware_class"]},
                        {"gpus", rec["gpus"]},
                        {"gpu_unavailable_reason", inv.gpu_unavailable_reason}};
}

std::string or_dash(const std::string& s) { return s.empty() ? "-" : s; }
template <class T>
std::string opt_text(const std::optional<T>& v) {
  return v ? fmt::format("{}", *v) : "-";
}
std::string opt_bool(const std::optional<bool>& v) { return v ? (*v ? "on" : "off") : "-"; }

// What NVML failed to give (docs/inventory.md, "GPUs NVML cannot read"): never left out.
void print_nvml_unread(const Inventory& inv) {
  for (const auto& g : inv.gpus) {
    for (const auto& u : g.nvml_unread) fmt::print("  gpu {}: NVML did not give {}\n", g.index, u);
  }
  for (const auto& d : inv.node.nvml_devices_unread) fmt::print("  not tied to a GPU: {}\n", d);
}

void print_table(const Inventory& inv) {
  const NodeFacts& n = inv.node;
  // Node strings (labels, names, versions) one line each, controls shown (core/base/text_escape.hpp).
  auto row = [](const char* key, const std::string& value) {
    fmt::print("  {:<22} {}\n", key, terminal_line(value));
  };
  fmt::print("Node\n");
  row("hostname", or_dash(n.hostname));
  row("kernel", or_dash(n.kernel));
  row("arch", or_dash(n.arch));
  row("os", or_dash(n.os));
  row("cpu", or_dash(n.cpu_model));
  row("numa nodes", opt_text(n.numa_nodes));
  row("driver", n.driver_version.empty() ? "- (no NVIDIA driver found)" : n.driver_version);
  row("cuda (driver)", n.cuda_driver_version.empty() ? "- (cudaDriverGetVersion: 0)" : n.cuda_driver_version);
  row("cuda (runtime)", or_dash(n.cuda_runtime_version));
  row("cublas", or_dash(n.cublas_version));
  row("nccl", or_dash(n.nccl_version));
  row("kernel module", or_dash(n.kernel_module_version));
  row("nvml driver / cuda",
      fmt::format("{} / {}", or_dash(n.nvml_driver_version), or_dash(n.nvml_cuda_driver_version)));
  row("libcuda", or_dash(n.libcuda_version));
  row("boot id", or_dash(n.boot_id));
  row("uptime (s)", n.uptime_s ? fmt::format("{:.0f}", *n.uptime_s) : "-");
  if (!n.pci_gpus) {
    row("pci gpus", "- (sysfs not readable)");
  } else {
    row("pci gpus", std::to_string(n.pci_gpus->size()));
    for (const auto& p : *n.pci_gpus)
      fmt::print("    {} device {} class {}\n", p.bus_id, p.device_id, p.pci_class);
  }
  std::string runtimes;
  for (const auto& r : n.container_runtimes) runtimes += (runtimes.empty() ? "" : ", ") + r;
  row("container runtimes", runtimes.empty() ? "- (none on PATH)" : runtimes);
  row("k8s node", n.k8s_node_name.empty() ? "- (not set: GPUQUAL_NODE_NAME / NODE_NAME)" : n.k8s_node_name);
  row("k8s labels", n.k8s_labels.empty() ? "-" : std::to_string(n.k8s_labels.size()));
  for (const auto& [k, v] : n.k8s_labels) fmt::print("    {}\n", terminal_line(k + "=" + v));

  const HardwareClass& hw = inv.hardware_class;
  fmt::print("\nHardware class\n");
  row("class", hw.slug + (hw.overridden ? " (--class)" : ""));
  row("gpu count", std::to_string(hw.gpu_count));
  row("product label", or_dash(hw.product));
  row("memory label (MiB)", opt_text(hw.memory_mib));

  fmt::print("\nGPUs ({})\n", inv.gpus.size());
  if (!inv.gpus.empty()) {
    fmt::print("  {:>3}  {:<24} {:<16} {:>4} {:>4} {:>9} {:>4} {:>4} {:>5} {:>8} {:>7} {:>6}  {}\n", "idx",
               "name", "pci", "cc", "sms", "mem(GiB)", "ecc", "mig", "pers", "pcie", "power", "nvlink",
               "uuid / vbios");
    for (const auto& g : inv.gpus) {
      std::string pcie = (g.pcie_max_gen || g.pcie_max_width)
                             ? fmt::format("{}x{}", opt_text(g.pcie_max_gen), opt_text(g.pcie_max_width))
                             : "-";
      std::string power = g.power_limit_w ? fmt::format("{:.0f}W", *g.power_limit_w) : "-";
      fmt::print("  {:>3}  {:<24} {:<16} {:>4} {:>4} {:>9.1f} {:>4} {:>4} {:>5} {:>8} {:>7} {:>6}  {} / {}\n",
                 g.index, g.name, or_dash(g.pci_bus_id), or_dash(g.compute_capability), g.sm_count,
                 static_cast<double>(g.memory_bytes) / (1u << 30), opt_bool(g.ecc_enabled),
                 opt_bool(g.mig_enabled), opt_bool(g.persistence_enabled), pcie, power,
                 opt_text(g.nvlink_count), or_dash(g.uuid), or_dash(g.vbios));
    }
  }
  for (const auto& g : inv.gpus) {
    if (!g.virtualization_mode.empty() && g.virtualization_mode != "none") {
      fmt::print("  gpu {}: virtualization mode {}\n", g.index, g.virtualization_mode);
    }
  }
  print_nvml_unread(inv);
  if (!inv.gpu_unavailable_reason.empty())
    fmt::print("  CUDA cannot use GPUs: {}\n", inv.gpu_unavailable_reason);
  // The whole stack as diff, Prometheus and matrix name it (core/record/stack_inventory.hpp).
  RunRecord r;
  r.node = inv.node;
  r.gpus = inv.gpus;
  fmt::print("\nStack\n");
  for (const auto& c : stack_components(r)) {
    const std::string value = c.fact.value ? or_dash(*c.fact.value) : "- (" + c.fact.reason + ")";
    fmt::print("  {:<28} {}\n", c.name, terminal_line(value));
  }
}

int run_inventory(const InventoryArgs& args) {
  InventoryOptions options = args.options;
  apply_stack_flags(args.stack, options);
  Inventory inv = collect_inventory(options);
  const bool usable = inv.gpu_unavailable_reason.empty() && !inv.gpus.empty();
  if (args.format == "json") {
    fmt::print("{}\n", inventory_json(inv).dump(2));
  } else {
    print_table(inv);
    // The one-line summary, last on stdout (docs/architecture.md, "Exit codes").
    if (usable) {
      fmt::print("\ngpuqual inventory: {} GPU(s), class {}\n", inv.gpus.size(), inv.hardware_class.slug);
    } else {
      fmt::print("\ngpuqual inventory: no usable GPU ({}), class {}\n", inv.gpu_unavailable_reason,
                 inv.hardware_class.slug);
    }
  }
  std::fflush(stdout);
  return usable ? kExitPass : kExitInconclusive;
}

}  // namespace

void add_inventory_command(CLI::App& app, CommandAction& selected) {
  auto args = std::make_shared<InventoryArgs>();
  CLI::App* cmd = app.add_subcommand("inventory",
                                     "Print this node's facts (OS, driver, CUDA/cuBLAS/NCCL versions, "
                                     "container runtimes, Kubernetes node),\n"
                                     "its GPUs and hardware class. Exit 0: CUDA can use the GPUs; 2: no "
                                     "usable GPU (reason printed); 3: bad input.");
  cmd->add_option("--format", args->format, "Output format")
      ->check(CLI::IsMember({"table", "json"}))
      ->default_val("table");
  add_class_option(cmd, args->options.class_override, "Hardware class to report instead of the derived one");
  cmd->add_option(
      "--labels-file", args->options.k8s_labels_file,
      "Kubernetes node labels file (downward API format key=\"value\"); default: $GPUQUAL_LABELS_FILE");
  add_stack_options(cmd, args->stack);
  cmd->callback([args, &selected] { selected = [args] { return run_inventory(*args); }; });
}

}  // namespace gpuqual
