// The driver stack's packages, read by the package database's own tool, never by parsing its
// files here: `dpkg-query --admindir=<root>/var/lib/dpkg -W` (dpkg-query(1)) for dpkg's status file,
// `rpm --dbpath <root>/var/lib/rpm -qa` (rpm(8)) for the RPM database. Where the database is there
// but its tool is not (an RPM host read from a Debian image), the note says so and the package
// rules are not judged.
#include <fmt/format.h>

#include <regex>
#include <sstream>

#include "core/base/dotted_version.hpp"
#include "core/base/subprocess.hpp"
#include "device/host/stack_tree_reader.hpp"

namespace gpuqual {
namespace {

// "1:570.133.20-0ubuntu0.24.04.1" → "570.133.20"; "" when it does not start with a driver version.
std::string upstream_driver_version(const std::string& version) {
  static const std::regex v(R"(^(?:\d+:)?(\d{3}\.\d+(?:\.\d+)?))");
  std::smatch m;
  if (!std::regex_search(version, m, v) || !parse_driver_version(m[1].str())) return "";
  return m[1].str();
}

void classify(HostStack& h, const std::string& name, const std::string& version) {
  static const std::regex driver(
      R"(^(nvidia-driver(-\d+)?(-server)?(-open)?|libnvidia-compute-\d+(-server)?|cuda-drivers(-\d+)?|nvidia-kernel-source-\d+(-server)?(-open)?|kmod-nvidia.*|nvidia-open)$)");
  static const std::regex fm(R"(^(nvidia-fabric-?manager(-\d+)?)$)");
  static const std::regex toolkit(R"(^nvidia-container-toolkit(-base)?$)");
  static const std::regex dcgm(R"(^datacenter-gpu-manager.*$)");
  // NVLink Subnet Manager and the IMEX daemon, as NVIDIA's CUDA repositories name them
  // (docs/stack-check.md, "NVLink fabric: NVLSM and IMEX").
  static const std::regex nvlsm(R"(^nvlsm$)");
  static const std::regex imex(R"(^nvidia-imex(-\d+)?$)");
  const std::string upstream = upstream_driver_version(version);
  if (std::regex_match(name, driver) && !upstream.empty()) {
    h.driver_packages.push_back(StackPackage{name, upstream});
  } else if (std::regex_match(name, fm) && !upstream.empty()) {
    h.fabric_manager_packages.push_back(StackPackage{name, upstream});
  } else if (std::regex_match(name, toolkit)) {
    h.toolkit_packages.push_back(StackPackage{name, version});
  } else if (std::regex_match(name, nvlsm)) {
    h.nvlsm_packages.push_back(StackPackage{name, version});
  } else if (std::regex_match(name, imex) && !upstream.empty()) {
    h.imex_packages.push_back(StackPackage{name, upstream});
  } else if (std::regex_match(name, dcgm)) {
    h.dcgm_packages.push_back(StackPackage{name, version});
  }
}

// Lines "name\tstatus\tversion" (dpkg) or "name\tversion" (rpm, status "ii").
void read_listing(HostStack& h, const std::string& out, bool with_status) {
  std::istringstream in(out);
  std::string line;
  while (std::getline(in, line)) {
    std::vector<std::string> f;
    std::istringstream fields(line);
    for (std::string x; std::getline(fields, x, '\t');) f.push_back(x);
    if (f.size() != (with_status ? 3u : 2u)) continue;
    // Installed: "ii" (or held, "hi"); "rc" is removed with its configuration left.
    if (with_status && !(f[1].starts_with("ii") || f[1].starts_with("hi"))) continue;
    const std::string name = f[0].substr(0, f[0].find(':'));  // "libnvidia-compute-570:amd64"
    classify(h, name, f.back());
  }
}

bool run_tool(HostStack& h, const std::vector<std::string>& argv, const std::string& what, bool with_status) {
  ProcessOptions po;
  po.timeout_s = 30;
  po.max_output = 8u << 20;
  ProcessResult r = run_process(argv, po);
  if (!r.ok()) {
    h.packages_note = fmt::format("{} is there but {} failed ({}): packages not read", what, argv.front(),
                                  r.describe(argv.front()));
    return false;
  }
  read_listing(h, r.out, with_status);
  h.packages_read = true;
  return true;
}

}  // namespace

void read_stack_packages(HostTree& tree, HostStack& h, const StackReadOptions& options) {
  std::string text;
  const auto status = tree.read("/var/lib/dpkg/status", text, kStackMaxStatusBytes);
  if (status == HostTree::Read::ok) {
    const auto admindir = tree.resolve("/var/lib/dpkg");
    if (find_program(options.dpkg_query).empty() && options.dpkg_query.find('/') == std::string::npos) {
      h.packages_note = "dpkg's status file is there but dpkg-query is not: packages not read";
    } else if (admindir) {
      run_tool(h,
               {options.dpkg_query, "--admindir=" + *admindir, "-W",
                "-f=${binary:Package}\t${db:Status-Abbrev}\t${Version}\n"},
               "dpkg's status file", true);
    }
  }
  for (const std::string db : {"/var/lib/rpm", "/usr/lib/sysimage/rpm"}) {
    if (!tree.is_dir(db)) continue;
    const auto local = tree.resolve(db);
    if (find_program(options.rpm).empty() && options.rpm.find('/') == std::string::npos) {
      const std::string note = fmt::format(
          "an RPM database is at {} but rpm is not available here: its packages "
          "were not read",
          db);
      h.packages_note = h.packages_note.empty() ? note : h.packages_note + "; " + note;
    } else if (local) {
      run_tool(h, {options.rpm, "--dbpath", *local, "-qa", "--qf", "%{NAME}\t%{VERSION}\n"},
               "the RPM database", false);
    }
    break;
  }
}

}  // namespace gpuqual
