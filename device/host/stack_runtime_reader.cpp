// The container engines' NVIDIA handler and the NVIDIA Container Runtime's mode, from their TOML
// (tomlplusplus):
// - containerd: /etc/containerd/config.toml and the files its `imports` name (globs relative to
//   the config's folder; the toolkit's drop-in /etc/containerd/conf.d/99-nvidia.toml), merged in
//   that order as containerd merges them. Layout 2 (containerd 1.x, `version = 2`) keeps the CRI
//   plugin in plugins."io.containerd.grpc.v1.cri"; layout 3 (containerd 2.x, `version = 3`) in
//   plugins."io.containerd.cri.v1.runtime"
//   (https://github.com/containerd/containerd/blob/main/docs/cri/config.md). enable_cdi defaults to true in
//   containerd 2.0 and false in 1.7.
// - CRI-O: /etc/crio/crio.conf then every file in /etc/crio/crio.conf.d in lexical order
//   (crio.conf.d(5); subfolders, which CRI-O also walks, are not read),
//   crio.runtime.runtimes.<handler>.runtime_path; CDI is always on (CRI-O 1.23+); cgroup_manager
//   defaults to systemd.
// - k3s and RKE2: their own containerd's /var/lib/rancher/{k3s,rke2}/agent/etc/containerd/config.toml
//   (read_rancher_containerd).
// - /etc/nvidia-container-runtime/config.toml (or the GPU Operator's
//   /usr/local/nvidia/toolkit/.config/...): nvidia-container-runtime.mode, "auto" when unset.
#include <fmt/format.h>
#include <fnmatch.h>

#include <toml++/toml.h>

#include "device/host/stack_tree_reader.hpp"

namespace gpuqual {
namespace {

constexpr const char* kCriV2 = "io.containerd.grpc.v1.cri";
constexpr const char* kCriV3 = "io.containerd.cri.v1.runtime";
constexpr std::size_t kMaxImports = 64;

// Parses `path`; nullopt when absent or unread (tree keeps why) or when it does not parse
// (`error` says where).
std::optional<toml::table> parse_toml(HostTree& tree, const std::string& path, std::string& error) {
  std::string text;
  if (tree.read(path, text) != HostTree::Read::ok) return std::nullopt;
  try {
    return toml::parse(text, path);
  } catch (const toml::parse_error& e) {
    error = fmt::format("{}: line {}: {}", path, e.source().begin.line, e.description());
    return std::nullopt;
  }
}

std::string dir_of(const std::string& p) { return p.substr(0, p.rfind('/')); }

// The files an `imports` entry names: a path or a glob on the last component.
std::vector<std::string> expand_import(HostTree& tree, const std::string& config, std::string entry) {
  if (entry.empty()) return {};
  if (entry.front() != '/') entry = dir_of(config) + "/" + entry;
  const std::string base = entry.substr(entry.rfind('/') + 1);
  if (base.find_first_of("*?[") == std::string::npos)
    return tree.exists(entry) ? std::vector{entry} : std::vector<std::string>{};
  std::vector<std::string> out;
  for (const auto& name : tree.list(dir_of(entry))) {
    if (::fnmatch(base.c_str(), name.c_str(), 0) == 0) out.push_back(dir_of(entry) + "/" + name);
  }
  return out;
}

void containerd_file(HostTree& tree, const std::string& file, const toml::table& t,
                     const std::string& handler, RuntimeEngine& e) {
  RuntimeEngine::Layout layout{
      .file = file, .version = static_cast<int>(t["version"].value_or<int64_t>(1)), .cri_plugin = ""};
  const char* cri = t["plugins"][kCriV3] ? kCriV3 : t["plugins"][kCriV2] ? kCriV2 : nullptr;
  if (cri) layout.cri_plugin = cri;
  e.layouts.push_back(layout);
  if (!cri) return;
  const auto plugin = t["plugins"][cri];
  if (auto cdi = plugin["enable_cdi"].value<bool>()) e.cdi_enabled = *cdi;
  const auto h = plugin["containerd"]["runtimes"][handler];
  if (!h) return;
  e.handler_found = true;
  if (auto bin = h["options"]["BinaryName"].value<std::string>()) e.handler_binary = *bin;
  if (auto sd = h["options"]["SystemdCgroup"].value<bool>()) e.systemd_cgroup = *sd;
  (void)tree;
}

void read_containerd(HostTree& tree, HostStack& h, const std::string& handler, const std::string& main,
                     const std::string& engine) {
  RuntimeEngine e;
  e.engine = engine;
  std::string error;
  auto t = parse_toml(tree, main, error);
  if (!t && error.empty()) return;  // absent or unread (kept in tree.unread)
  e.files.push_back(main);
  if (!t) {
    e.parse_error = error;
    h.engines.push_back(std::move(e));
    return;
  }
  containerd_file(tree, main, *t, handler, e);
  const int version = e.layouts.front().version;
  if (const toml::array* imports = (*t)["imports"].as_array()) {
    for (const auto& entry : *imports) {
      for (const auto& file : expand_import(tree, main, entry.value_or<std::string>(""))) {
        if (e.files.size() > kMaxImports) break;
        const std::size_t unread = tree.unread.size();
        auto it = parse_toml(tree, file, error);
        if (!it && !error.empty()) e.parse_error = error;
        if (tree.unread.size() != unread) e.incomplete = true;
        if (!it) continue;
        e.files.push_back(file);
        containerd_file(tree, file, *it, handler, e);
      }
    }
  }
  if (!e.cdi_enabled) e.cdi_enabled = version >= 3;
  if (e.handler_found && !e.handler_binary.empty()) e.binary_executable = tree.executable(e.handler_binary);
  h.engines.push_back(std::move(e));
}

void read_crio(HostTree& tree, HostStack& h, const std::string& handler) {
  std::vector<std::string> files;
  if (tree.exists("/etc/crio/crio.conf")) files.push_back("/etc/crio/crio.conf");
  // CRI-O applies every file of the drop-in folder, whatever its name ends with (cri-o
  // pkg/config/config.go UpdateFromPath walks the folder): the toolkit writes 99-nvidia.toml.
  for (const auto& name : tree.list("/etc/crio/crio.conf.d")) {
    const std::string path = "/etc/crio/crio.conf.d/" + name;
    if (!tree.is_dir(path)) files.push_back(path);
  }
  if (files.empty()) return;
  RuntimeEngine e;
  e.engine = "cri-o";
  e.cdi_enabled = true;
  std::string cgroup_manager = "systemd";
  for (const auto& file : files) {
    std::string error;
    const std::size_t unread = tree.unread.size();
    auto t = parse_toml(tree, file, error);
    if (tree.unread.size() != unread) e.incomplete = true;
    if (!t && !error.empty()) e.parse_error = error;
    if (!t) continue;
    e.files.push_back(file);
    const auto runtime = (*t)["crio"]["runtime"];
    if (auto cg = runtime["cgroup_manager"].value<std::string>()) cgroup_manager = *cg;
    const auto r = runtime["runtimes"][handler];
    if (!r) continue;
    e.handler_found = true;
    if (auto p = r["runtime_path"].value<std::string>()) e.handler_binary = *p;
  }
  e.systemd_cgroup = cgroup_manager == "systemd";
  if (e.handler_found && !e.handler_binary.empty()) e.binary_executable = tree.executable(e.handler_binary);
  h.engines.push_back(std::move(e));
}

// k3s and RKE2 run their own containerd and render its config.toml at every start from
// config.toml.tmpl (or config-v3.toml.tmpl for containerd 2) when one is there, else from their
// defaults, which add the `nvidia` runtime when they find nvidia-container-runtime (k3s docs,
// "Advanced Options"). The rendered config.toml is what runs: it is read. Without it, a template
// with no Go template action ({{ ... }}) is the file k3s would write and is read in its place; one
// with actions cannot be judged without k3s's values, so it is noted as not read (the check is an
// error, never a pass).
void read_rancher_containerd(HostTree& tree, HostStack& h, const std::string& handler,
                             const std::string& distro) {
  const std::string dir = "/var/lib/rancher/" + distro + "/agent/etc/containerd";
  const std::string engine = "containerd (" + distro + ")";
  if (tree.exists(dir + "/config.toml")) {
    read_containerd(tree, h, handler, dir + "/config.toml", engine);
    return;
  }
  for (const char* name : {"config-v3.toml.tmpl", "config.toml.tmpl"}) {
    const std::string tmpl = dir + "/" + name;
    std::string text;
    if (tree.read(tmpl, text) != HostTree::Read::ok) continue;
    if (text.find("{{") != std::string::npos) {
      tree.note_unread(tmpl,
                       fmt::format("a template {} renders at start (Go template actions), and no rendered "
                                   "config.toml is beside it: the handler cannot be judged",
                                   distro));
      return;
    }
    read_containerd(tree, h, handler, tmpl, engine);
    return;
  }
}

}  // namespace

void read_runtime_engines(HostTree& tree, HostStack& h, const std::string& handler) {
  read_containerd(tree, h, handler, "/etc/containerd/config.toml", "containerd");
  read_crio(tree, h, handler);
  for (const char* distro : {"k3s", "rke2"}) read_rancher_containerd(tree, h, handler, distro);
}

void read_runtime_mode(HostTree& tree, HostStack& h) {
  for (const std::string path : {"/etc/nvidia-container-runtime/config.toml",
                                 "/usr/local/nvidia/toolkit/.config/nvidia-container-runtime/config.toml"}) {
    std::string error;
    auto t = parse_toml(tree, path, error);
    if (!t && error.empty()) continue;
    h.runtime_config_path = path;
    if (!t) {
      h.runtime_config_error = error.substr(path.size() + 2);
      return;
    }
    h.runtime_mode = (*t)["nvidia-container-runtime"]["mode"].value_or<std::string>("auto");
    return;
  }
}

}  // namespace gpuqual
