#include "device/host/driver_addons.hpp"

#include <filesystem>

#include "device/host/container_runtimes.hpp"
#include "device/host/fact_file.hpp"

namespace gpuqual {

namespace {

namespace fs = std::filesystem;

bool present(const fs::path& p) {
  std::error_code ec;
  return fs::exists(p, ec);
}

// Linux keeps 15 characters of a process name (TASK_COMM_LEN 16, proc(5) /proc/pid/comm), so
// "nv-fabricmanager" reads "nv-fabricmanage".
bool fabric_manager_running(const std::string& proc_dir) {
  std::error_code ec;
  for (fs::directory_iterator it(proc_dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string pid = it->path().filename().string();
    if (pid.empty() || pid.find_first_not_of("0123456789") != std::string::npos) continue;
    StackFact comm = read_fact_file((it->path() / "comm").string());
    if (comm.value && *comm.value == "nv-fabricmanage") return true;
  }
  return false;
}

}  // namespace

StackFact read_kernel_module_build(const std::string& path) {
  StackFact f = read_fact_file(path);
  if (!f.known()) f.reason += " (no NVIDIA kernel module loaded?)";
  return f;
}

StackFact read_fabric_manager(const std::string& path_env, const std::string& root,
                              const std::string& proc_dir) {
  std::string binary = find_on_path("nv-fabricmanager", path_env).value_or("");
  if (binary.empty() && present(root + "/usr/bin/nv-fabricmanager"))
    binary = root + "/usr/bin/nv-fabricmanager";
  bool unit = false;
  // The unit the Fabric Manager packages install (Fabric Manager User Guide, "Starting").
  for (const char* dir : {"/lib/systemd/system", "/usr/lib/systemd/system", "/etc/systemd/system"}) {
    unit = unit || present(root + dir + "/nvidia-fabricmanager.service");
  }
  const bool running = fabric_manager_running(proc_dir);
  if (binary.empty() && !unit && !running) return StackFact::read("not found");
  std::string version;
  if (!binary.empty()) {
    if (auto out = version_output(binary)) version = parse_tool_version(*out);
  }
  return StackFact::read((version.empty() ? "installed" : version) +
                         (running ? ", running" : ", not running"));
}

StackFact read_nvidia_peermem(const std::string& sys_module_dir) {
  std::error_code ec;
  if (!fs::is_directory(sys_module_dir, ec)) return StackFact::unread(sys_module_dir + ": not readable");
  const fs::path module = fs::path(sys_module_dir) / "nvidia_peermem";
  if (!present(module)) return StackFact::read("not loaded");
  StackFact version = read_fact_file((module / "version").string());
  return StackFact::read(version.value && !version.value->empty() ? "loaded " + *version.value : "loaded");
}

}  // namespace gpuqual
