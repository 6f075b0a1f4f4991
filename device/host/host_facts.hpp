#pragma once
// Facts about the host itself (not the GPU): hostname, kernel, OS, CPU model, NUMA nodes.
// Each reader takes the file it reads as a parameter so tests can point it at fixtures; the
// defaults are the real /etc, /proc and /sys paths. Nothing throws: an unreadable file leaves
// the fact empty (an inventory of a strange node is still an inventory).
#include <optional>
#include <string>
#include <string_view>

namespace gpuqual {

std::string read_hostname();
// uname(2)'s release, `uname -r`: "6.1.0-18-amd64", exactly as Kubernetes' nodeInfo.kernelVersion
// shows it (the kubelet reads the same field), so a record compares with the Node. "" on error.
std::string read_kernel();
// uname(2)'s machine, `uname -m`: "x86_64", "aarch64". "" on error.
std::string read_arch();
// PRETTY_NAME from os-release ("Debian GNU/Linux 12 (bookworm)"), else NAME VERSION_ID.
std::string read_os_name(const std::string& os_release = "/etc/os-release");
std::string parse_os_release(std::string_view text);
// "model name" of the first CPU in /proc/cpuinfo (x86), else "Model"/"CPU part" lines (Arm).
std::string read_cpu_model(const std::string& cpuinfo = "/proc/cpuinfo");
std::string parse_cpu_model(std::string_view cpuinfo_text);
// Count of node<N> directories under sysfs; nullopt when the folder is missing (no NUMA info).
std::optional<int> count_numa_nodes(const std::string& node_dir = "/sys/devices/system/node");
// The kernel's random id of this boot (a UUID): a different one after the upgrade means the node
// rebooted in between. "" when unreadable.
std::string read_boot_id(const std::string& path = "/proc/sys/kernel/random/boot_id");
// Seconds since boot, the first number of /proc/uptime; nullopt when unreadable or malformed.
std::optional<double> read_uptime_s(const std::string& path = "/proc/uptime");
std::optional<double> parse_uptime(std::string_view text);

}  // namespace gpuqual
