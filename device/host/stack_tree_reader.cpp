#include "device/host/stack_tree_reader.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <filesystem>
#include <regex>

#include "core/base/input_error.hpp"
#include "device/host/pci_gpus.hpp"

namespace gpuqual {

namespace fs = std::filesystem;

namespace {

constexpr int kMaxLinks = 40;  // the kernel's own limit on links followed in one lookup (MAXSYMLINKS)

std::deque<std::string> components(const std::string& p) {
  std::deque<std::string> out;
  std::size_t i = 0;
  while (i < p.size()) {
    const std::size_t j = p.find('/', i);
    const std::string c = p.substr(i, j == std::string::npos ? std::string::npos : j - i);
    if (!c.empty() && c != ".") out.push_back(c);
    if (j == std::string::npos) break;
    i = j + 1;
  }
  return out;
}

std::string parent_of(const std::string& p) {
  const auto slash = p.rfind('/');
  return slash == std::string::npos || slash == 0 ? "" : p.substr(0, slash);
}

std::string first_line(const std::string& text) {
  std::string line = text.substr(0, text.find('\n'));
  while (!line.empty() && (line.back() == ' ' || line.back() == '\t' || line.back() == '\r')) line.pop_back();
  return line;
}

}  // namespace

HostTree::HostTree(std::string root) : root_(std::move(root)) {
  while (!root_.empty() && root_.back() == '/') root_.pop_back();
}

std::optional<std::string> HostTree::resolve(const std::string& p, std::string* why) const {
  std::deque<std::string> rest = components(p);
  std::string cur;  // host path resolved so far, "" = the root
  int links = 0;
  while (!rest.empty()) {
    const std::string c = rest.front();
    rest.pop_front();
    if (c == "..") {
      cur = parent_of(cur);
      continue;
    }
    const std::string next = cur + "/" + c;
    struct stat st {};
    if (::lstat((root_ + next).c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) {
      cur = next;  // a missing component stays missing: the caller's stat says so
      continue;
    }
    if (++links > kMaxLinks) {
      if (why) *why = "too many levels of symbolic links (a loop?)";
      return std::nullopt;
    }
    std::error_code ec;
    const std::string target = fs::read_symlink(root_ + next, ec).string();
    if (ec) {
      if (why) *why = ec.message();
      return std::nullopt;
    }
    if (!target.empty() && target.front() == '/') cur.clear();
    std::deque<std::string> t = components(target);
    rest.insert(rest.begin(), t.begin(), t.end());
  }
  return root_ + (cur.empty() ? "/" : cur);
}

void HostTree::note_unread(const std::string& p, const std::string& problem) {
  for (const auto& u : unread) {
    if (u.path == p) return;
  }
  unread.push_back(StackUnread{p, problem});
}

HostTree::Read HostTree::read(const std::string& p, std::string& text, std::size_t max_bytes) {
  std::string why;
  const auto local = resolve(p, &why);
  if (!local) {
    note_unread(p, why);
    return Read::unread;
  }
  const int fd = ::open(local->c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT || errno == ENOTDIR) return Read::absent;
    note_unread(p, std::strerror(errno));
    return Read::unread;
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    note_unread(p, "not a regular file");
    return Read::unread;
  }
  if (static_cast<std::size_t>(st.st_size) > max_bytes) {
    ::close(fd);
    note_unread(p, "larger than " + std::to_string(max_bytes >> 10) + " KiB (" + std::to_string(st.st_size) +
                       " bytes): not read");
    return Read::unread;
  }
  // /proc and /sys files report a size of 0 or 4096 whatever they hold: read to the bound.
  text.clear();
  char buf[65536];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const std::string err = std::strerror(errno);
      ::close(fd);
      note_unread(p, err);
      return Read::unread;
    }
    if (n == 0) break;
    text.append(buf, static_cast<std::size_t>(n));
    if (text.size() > max_bytes) {
      ::close(fd);
      note_unread(p, "larger than " + std::to_string(max_bytes >> 10) + " KiB: not read");
      return Read::unread;
    }
  }
  ::close(fd);
  return Read::ok;
}

bool HostTree::exists(const std::string& p) const {
  const auto local = resolve(p);
  struct stat st {};
  return local && ::lstat(local->c_str(), &st) == 0;
}

bool HostTree::is_dir(const std::string& p) const {
  const auto local = resolve(p);
  struct stat st {};
  return local && ::lstat(local->c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

bool HostTree::executable(const std::string& p) const {
  const auto local = resolve(p);
  struct stat st {};
  return local && ::lstat(local->c_str(), &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 0111) != 0;
}

std::vector<std::string> HostTree::list(const std::string& p) {
  std::vector<std::string> names;
  std::string why;
  const auto local = resolve(p, &why);
  if (!local) {
    note_unread(p, why);
    return names;
  }
  struct stat st {};
  if (::lstat(local->c_str(), &st) != 0) return names;
  if (!S_ISDIR(st.st_mode)) {
    note_unread(p, "not a directory");
    return names;
  }
  std::error_code ec;
  fs::directory_iterator it(*local, ec);
  for (; !ec && it != fs::directory_iterator(); it.increment(ec)) {
    if (names.size() == kStackMaxDirEntries) {
      note_unread(p, "more than " + std::to_string(kStackMaxDirEntries) + " entries: the rest not read");
      break;
    }
    names.push_back(it->path().filename().string());
  }
  if (ec) note_unread(p, ec.message());
  std::sort(names.begin(), names.end());
  return names;
}

std::string HostTree::link_target(const std::string& p) const {
  const auto local = resolve(parent_of(p).empty() ? "/" : parent_of(p));
  if (!local) return "";
  const std::string path = (*local == "/" ? "" : *local) + p.substr(p.rfind('/'));
  std::error_code ec;
  if (!fs::is_symlink(fs::symlink_status(path, ec))) return "";
  return fs::read_symlink(path, ec).string();
}

namespace {

void read_driver_and_kernel(HostTree& tree, HostStack& h) {
  std::string text;
  if (tree.read("/proc/driver/nvidia/version", text) == HostTree::Read::ok) {
    static const std::regex version(R"(\s(\d{3}\.\d+(?:\.\d+)?)\s)");
    std::smatch m;
    const std::string line = first_line(text) + " ";
    if (std::regex_search(line, m, version)) h.loaded_driver = m[1].str();
  }
  if (!h.loaded_driver && tree.read("/sys/module/nvidia/version", text) == HostTree::Read::ok) {
    if (const std::string v = first_line(text); !v.empty()) h.loaded_driver = v;
  }
  if (tree.read("/proc/sys/kernel/osrelease", text) == HostTree::Read::ok) {
    if (const std::string v = first_line(text); !v.empty()) h.running_kernel = v;
  }
}

bool is_nvidia_module(const std::string& name) {
  return name == "nvidia.ko" || name == "nvidia.ko.xz" || name == "nvidia.ko.zst" || name == "nvidia.ko.gz";
}

// Whether `dir` (a local path inside the root) holds an nvidia.ko at most 4 levels down. The walk
// does not follow directory links, so it stays inside the tree and ends.
bool has_nvidia_module(const std::string& dir) {
  std::error_code ec;
  std::size_t seen = 0;
  fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec);
  for (; !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (++seen > 20000) return false;
    if (it.depth() >= 4) it.disable_recursion_pending();
    if (is_nvidia_module(it->path().filename().string())) return true;
  }
  return false;
}

void read_kernel_modules(HostTree& tree, HostStack& h) {
  for (const auto& k : tree.list("/lib/modules")) {
    if (!tree.is_dir("/lib/modules/" + k)) continue;
    h.installed_kernels.push_back(k);
    bool found = false;
    // DKMS builds into updates/ (Debian, Ubuntu) or extra/ (RHEL); the .run installer into
    // kernel/drivers/video/; Ubuntu's precompiled linux-modules-nvidia-* into kernel/nvidia-<branch>/.
    std::vector<std::string> subs = {"updates", "extra", "kernel/drivers/video"};
    for (const auto& name : tree.list("/lib/modules/" + k + "/kernel")) {
      if (name.starts_with("nvidia")) subs.push_back("kernel/" + name);
    }
    for (const auto& sub : subs) {
      const auto local = tree.resolve("/lib/modules/" + k + "/" + sub);
      if (local && tree.is_dir("/lib/modules/" + k + "/" + sub)) found = found || has_nvidia_module(*local);
    }
    h.kernel_has_module[k] = found;
  }
  // DKMS keeps what it built as /var/lib/dkms/nvidia/<driver version>/<kernel>/.
  // Only a kernel with a module in /lib/modules has one to boot with: a build DKMS did not
  // install there says nothing of the next boot.
  auto has_module = [&](const std::string& k) {
    auto it = h.kernel_has_module.find(k);
    return it != h.kernel_has_module.end() && it->second;
  };
  for (const auto& version : tree.list("/var/lib/dkms/nvidia")) {
    for (const auto& k : tree.list("/var/lib/dkms/nvidia/" + version)) {
      if (!has_module(k)) continue;
      auto [it, fresh] = h.kernel_module_version.emplace(k, version);
      if (!fresh && h.loaded_driver && version == *h.loaded_driver) it->second = version;
    }
  }
  // Where DKMS built several versions for one kernel, the one it installed is marked by the link
  // kernel-<kernel>-<arch> → <version>/<kernel>/<arch> (dkms(8), the install action): it decides.
  for (const auto& name : tree.list("/var/lib/dkms/nvidia")) {
    if (!name.starts_with("kernel-")) continue;
    const std::deque<std::string> parts = components(tree.link_target("/var/lib/dkms/nvidia/" + name));
    if (parts.size() < 3) continue;
    const std::string& version = parts[parts.size() - 3];
    const std::string& kernel = parts[parts.size() - 2];
    if (has_module(kernel) && name == "kernel-" + kernel + "-" + parts.back())
      h.kernel_module_version[kernel] = version;
  }
}

void read_dev_char(HostTree& tree, HostStack& h) {
  if (!tree.is_dir("/dev/char")) return;
  h.dev_char_nvidia_links = false;
  for (const auto& name : tree.list("/dev/char")) {
    const std::string target = tree.link_target("/dev/char/" + name);
    if (target.find("nvidia") != std::string::npos) {
      h.dev_char_nvidia_links = true;
      return;
    }
  }
}

// The IMEX daemon's unit, its channels and the DRA driver's ComputeDomain plugin. The unit is
// nvidia-imex.service (IMEX guide, "Getting Started with IMEX":
// https://docs.nvidia.com/multi-node-nvlink-systems/imex-guide/gettingstarted.html); systemctl
// enables a unit by a link in <target>.wants and masks it by a link to /dev/null (systemctl(1)).
void read_imex(HostTree& tree, HostStack& h) {
  constexpr const char* kUnit = "nvidia-imex.service";
  for (const char* dir : {"/lib/systemd/system", "/usr/lib/systemd/system", "/etc/systemd/system"}) {
    h.imex_unit = h.imex_unit || tree.exists(std::string(dir) + "/" + kUnit);
  }
  h.imex_masked = tree.link_target(std::string("/etc/systemd/system/") + kUnit) == "/dev/null";
  for (const auto& wants : tree.list("/etc/systemd/system")) {
    if (!wants.ends_with(".wants")) continue;
    const std::string link = "/etc/systemd/system/" + wants + "/" + kUnit;
    h.imex_enabled = h.imex_enabled || !tree.link_target(link).empty() || tree.exists(link);
  }
  constexpr const char* kChannels = "/dev/nvidia-caps-imex-channels";
  if (tree.is_dir(kChannels)) {
    std::vector<std::string> channels;
    for (const auto& name : tree.list(kChannels)) {
      if (name.starts_with("channel")) channels.push_back(name);
    }
    h.imex_channels = std::move(channels);
  }
  h.dra_compute_domains = tree.is_dir("/var/lib/kubelet/plugins/compute-domain.nvidia.com");
}

std::optional<unsigned> hex_file(HostTree& tree, const std::string& p) {
  std::string text;
  if (tree.read(p, text, 4096) != HostTree::Read::ok) return std::nullopt;
  try {
    return static_cast<unsigned>(std::stoul(first_line(text), nullptr, 16));
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

void read_pci(HostTree& tree, HostStack& h) {
  const std::string dir = std::string(kSysPciDevices);
  if (!tree.is_dir(dir)) return;
  h.pci_read = true;
  for (const auto& dev : tree.list(dir)) {
    const std::string d = dir + "/" + dev;
    const auto vendor = hex_file(tree, d + "/vendor");
    if (!vendor || *vendor != kPciVendorNvidia || tree.exists(d + "/physfn")) continue;
    const auto cls = hex_file(tree, d + "/class");
    if (!cls) continue;
    if (is_gpu_pci_class(*cls)) {
      ++h.pci_gpus;
      if (auto id = hex_file(tree, d + "/device")) h.pci_gpu_device_ids.push_back(*id);
      const std::string driver = tree.link_target(d + "/driver");
      if (fs::path(driver).filename() == "vfio-pci") ++h.pci_gpus_passthrough;
    }
    if ((*cls >> 8) == 0x0680) ++h.pci_nvswitches;  // "bridge, other": how NVSwitch shows on the bus
  }
}

}  // namespace

std::string host_root_from_env() {
  const char* env = std::getenv(kHostRootEnvVar);
  return env ? env : "";
}

HostStack read_host_stack(const std::string& root, const StackReadOptions& options) {
  std::error_code ec;
  if (!fs::is_directory(root, ec)) throw InputError(root, "", "--root is not a directory");
  HostTree tree(root);
  HostStack h;
  h.root = root;
  read_driver_and_kernel(tree, h);
  read_kernel_modules(tree, h);
  read_stack_cdi_specs(tree, h);
  read_runtime_engines(tree, h, options.handler);
  h.kubelet = fs::is_directory(fs::path(root) / "var/lib/kubelet", ec);
  read_runtime_mode(tree, h);
  read_stack_packages(tree, h, options);
  read_dev_char(tree, h);
  read_pci(tree, h);
  read_imex(tree, h);
  h.unread = std::move(tree.unread);
  return h;
}

}  // namespace gpuqual
