#include "device/host/fabric_sysfs.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace gpuqual {

namespace fs = std::filesystem;

namespace {

std::string trim(std::string s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  std::size_t i = 0;
  while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
  return s.substr(i);
}

// A sysfs attribute is one short value; "" when it cannot be read.
std::string read_attr(const fs::path& file) {
  std::ifstream in(file);
  if (!in) return {};
  std::string line;
  std::getline(in, line);
  return trim(line);
}

std::optional<std::uint64_t> read_u64(const fs::path& file) {
  const std::string text = read_attr(file);
  std::uint64_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return v;
}

// numa_node is "-1" when the platform does not say.
std::optional<int> read_numa(const fs::path& device_dir) {
  const std::string text = read_attr(device_dir / "numa_node");
  int v = -1;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || v < 0) return std::nullopt;
  return v;
}

// The components of a resolved device directory below <root>/sys/devices.
std::vector<std::string> devices_path(const fs::path& root, const fs::path& resolved) {
  std::error_code ec;
  const fs::path base = fs::weakly_canonical(root / "sys" / "devices", ec);
  const fs::path rel = resolved.lexically_relative(base);
  std::vector<std::string> out;
  if (rel.empty() || *rel.begin() == "..") return out;
  for (const auto& part : rel) out.push_back(part.string());
  return out;
}

std::vector<fs::path> sorted_entries(const fs::path& dir) {
  std::vector<fs::path> out;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) out.push_back(it->path());
  std::sort(out.begin(), out.end());
  return out;
}

FabricPort read_port(const fs::path& dir, const std::vector<std::string>& counters) {
  FabricPort p;
  const std::string name = dir.filename().string();
  std::from_chars(name.data(), name.data() + name.size(), p.number);
  p.state = parse_ib_state(read_attr(dir / "state"));
  p.phys_state = parse_ib_state(read_attr(dir / "phys_state"));
  if (auto r = parse_ib_rate(read_attr(dir / "rate"))) {
    p.rate_gbps = r->gbps;
    p.width = r->width;
    p.speed = r->speed;
  }
  p.link_layer = read_attr(dir / "link_layer");
  for (const auto& c : counters)
    if (auto v = read_u64(dir / "counters" / c)) p.counters[c] = *v;
  return p;
}

}  // namespace

std::string parse_ib_state(std::string_view text) {
  const auto colon = text.find(':');
  std::string s(colon == std::string_view::npos ? text : text.substr(colon + 1));
  return trim(s);
}

std::optional<IbRate> parse_ib_rate(std::string_view text) {
  // drivers/infiniband/core/sysfs.c rate_show: "%d%s Gb/sec (%dX%s)", the %s being ".5" or "",
  // the speed " SDR" ... " XDR" (or "" for an old driver).
  IbRate r;
  const char* b = text.data();
  const char* e = b + text.size();
  const auto [p, ec] = std::from_chars(b, e, r.gbps);
  if (ec != std::errc()) return std::nullopt;
  std::string_view rest(p, static_cast<std::size_t>(e - p));
  if (!rest.starts_with(" Gb/sec")) return std::nullopt;
  const auto open = rest.find('('), close = rest.find(')');
  if (open == std::string_view::npos || close == std::string_view::npos || close < open) return std::nullopt;
  std::istringstream in{std::string(rest.substr(open + 1, close - open - 1))};
  in >> r.width >> r.speed;
  if (r.width.size() < 2 || r.width.back() != 'X') return std::nullopt;
  return r;
}

std::string sysfs_bus_id(std::string_view bus_id) {
  std::string s(bus_id);
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  // NVML prints an 8-digit domain ("00000000:19:00.0"); sysfs a 4-digit one.
  const auto colon = s.find(':');
  if (colon == 8 && s.starts_with("0000")) s.erase(0, 4);
  return s;
}

std::optional<FabricSnapshot> read_fabric_snapshot(const std::string& root,
                                                   const std::vector<std::string>& counters) {
  std::error_code ec;
  const fs::path r(root);
  if (!fs::is_directory(r / "sys" / "class", ec)) return std::nullopt;
  FabricSnapshot s;
  s.root = root;
  const fs::path cls = r / "sys" / "class" / "infiniband";
  if (!fs::is_directory(cls, ec)) return s;
  for (const fs::path& entry : sorted_entries(cls)) {
    FabricHca h;
    h.name = entry.filename().string();
    h.fw_ver = read_attr(entry / "fw_ver");
    h.hca_type = read_attr(entry / "hca_type");
    h.board_id = read_attr(entry / "board_id");
    h.node_guid = read_attr(entry / "node_guid");
    // `device` links to the PCI function; a software device (rxe, siw) has a net device instead.
    const fs::path dev = fs::canonical(entry / "device", ec);
    if (!ec) {
      h.pci_path = devices_path(r, dev);
      if (!h.pci_path.empty()) h.pci_address = h.pci_path.back();
      h.numa_node = read_numa(dev);
    }
    ec.clear();
    for (const fs::path& port : sorted_entries(entry / "ports")) h.ports.push_back(read_port(port, counters));
    std::sort(h.ports.begin(), h.ports.end(),
              [](const FabricPort& a, const FabricPort& b) { return a.number < b.number; });
    s.hcas.push_back(std::move(h));
  }
  return s;
}

GpuDirectFacts read_gpudirect_facts(const std::string& root) {
  GpuDirectFacts f;
  std::error_code ec;
  const fs::path r(root);
  f.peermem_loaded = fs::is_directory(r / "sys" / "module" / "nvidia_peermem", ec);
  std::ifstream version(r / "proc" / "driver" / "nvidia" / "version");
  if (version) {
    f.nvidia_module_read = true;
    std::string first;
    std::getline(version, first);
    // "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  550.54.15  Release Build ..."
    // (the proprietary module says "NVIDIA UNIX x86_64 Kernel Module").
    f.open_kernel_module = first.find("Open Kernel Module") != std::string::npos;
  }
  f.kernel_release = read_attr(r / "proc" / "sys" / "kernel" / "osrelease");
  return f;
}

std::optional<PciLocation> read_pci_location(const std::string& root, const std::string& bus_id) {
  std::error_code ec;
  const fs::path r(root);
  const fs::path dev = fs::canonical(r / "sys" / "bus" / "pci" / "devices" / sysfs_bus_id(bus_id), ec);
  if (ec) return std::nullopt;
  PciLocation loc;
  loc.path = devices_path(r, dev);
  if (loc.path.empty()) return std::nullopt;
  loc.numa_node = read_numa(dev);
  return loc;
}

}  // namespace gpuqual
