#include "device/host/pci_gpus.hpp"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <fstream>

namespace gpuqual {

namespace {

// sysfs attributes are one line, "0x10de\n".
std::optional<std::string> read_attribute(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::string line;
  if (!in || !std::getline(in, line)) return std::nullopt;
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r' || line.back() == ' ')) line.pop_back();
  return line;
}

std::optional<unsigned> parse_hex(std::string_view text) {
  if (text.starts_with("0x") || text.starts_with("0X")) text.remove_prefix(2);
  unsigned value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value, 16);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty()) return std::nullopt;
  return value;
}

}  // namespace

bool is_gpu_pci_class(unsigned pci_class) {
  const unsigned base_sub = pci_class >> 8;  // drop the programming interface byte
  return base_sub == 0x0300 || base_sub == 0x0302;
}

std::optional<std::vector<PciGpu>> read_pci_gpus(const std::string& devices_dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::directory_iterator it(devices_dir, ec);
  if (ec) return std::nullopt;
  std::vector<PciGpu> gpus;
  for (const auto& entry : it) {
    // Entries are symlinks into /sys/devices; the attribute files are read through them.
    const fs::path dir = entry.path();
    auto vendor_text = read_attribute(dir / "vendor");
    auto class_text = read_attribute(dir / "class");
    if (!vendor_text || !class_text) continue;
    auto vendor = parse_hex(*vendor_text);
    auto pci_class = parse_hex(*class_text);
    if (!vendor || !pci_class || *vendor != kPciVendorNvidia || !is_gpu_pci_class(*pci_class)) continue;
    // An SR-IOV virtual function (vGPU host) has a `physfn` link: a slice of a GPU, not one.
    if (fs::exists(fs::symlink_status(dir / "physfn", ec))) continue;
    std::string driver;
    const fs::path link = fs::read_symlink(dir / "driver", ec);
    if (!ec) driver = link.filename().string();
    ec.clear();
    gpus.push_back(
        PciGpu{dir.filename().string(), read_attribute(dir / "device").value_or(""), *class_text, driver});
  }
  std::sort(gpus.begin(), gpus.end(), [](const PciGpu& a, const PciGpu& b) { return a.bus_id < b.bus_id; });
  return gpus;
}

}  // namespace gpuqual
