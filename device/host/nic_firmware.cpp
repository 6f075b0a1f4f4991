#include "device/host/nic_firmware.hpp"

#include <algorithm>
#include <filesystem>
#include <regex>

#include "device/host/fact_file.hpp"

namespace gpuqual {

namespace {

namespace fs = std::filesystem;

// The PCI function behind a class device: the name of the folder its `device` link resolves to,
// when that is a PCI address (domain:bus:slot.function).
std::string pci_address_of(const fs::path& class_device) {
  static const std::regex pci(R"([0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7])");
  std::error_code ec;
  const fs::path target = fs::canonical(class_device / "device", ec);
  if (ec) return {};
  const std::string name = target.filename().string();
  return std::regex_match(name, pci) ? name : std::string();
}

// The kernel module of the bound driver (driver/module), else the driver's own name (a driver
// built into the kernel has no module link).
StackFact driver_of(const fs::path& class_device) {
  const fs::path driver = class_device / "device" / "driver";
  std::error_code ec;
  if (!fs::exists(driver, ec)) return StackFact::unread(driver.string() + ": no driver bound");
  StackFact module = read_link_name((driver / "module").string());
  return module.known() ? module : read_link_name(driver.string());
}

// fw_ver of an RDMA function of the same PCI device (mlx5 ports in Ethernet mode have one).
StackFact net_firmware(const fs::path& net_device) {
  std::error_code ec;
  fs::directory_iterator rdma(net_device / "device" / "infiniband", ec);
  if (!ec) {
    for (const auto& hca : rdma) {
      StackFact f = read_fact_file((hca.path() / "fw_ver").string());
      if (f.known()) return f;
    }
  }
  return StackFact::unread("sysfs has no firmware version for this interface (ethtool -i shows it)");
}

void list_class(const fs::path& dir, const char* cls, std::vector<NicStack>& out) {
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const fs::path dev = it->path();
    if (!fs::exists(dev / "device", ec)) continue;  // virtual interface
    NicStack n;
    n.name = dev.filename().string();
    n.sysfs_class = cls;
    n.pci_address = pci_address_of(dev);
    n.driver = driver_of(dev);
    n.firmware =
        std::string(cls) == "infiniband" ? read_fact_file((dev / "fw_ver").string()) : net_firmware(dev);
    out.push_back(std::move(n));
  }
}

}  // namespace

std::optional<std::vector<NicStack>> read_nics(std::string& reason, const std::string& class_dir) {
  const fs::path root(class_dir);
  std::error_code ec;
  fs::directory_iterator probe(root / "net", ec);
  if (ec) {
    reason = (root / "net").string() + ": " + ec.message();
    return std::nullopt;
  }
  std::vector<NicStack> out;
  list_class(root / "infiniband", "infiniband", out);  // absent folder: no RDMA devices
  list_class(root / "net", "net", out);
  std::sort(out.begin(), out.end(), [](const NicStack& a, const NicStack& b) {
    return a.sysfs_class != b.sysfs_class ? a.sysfs_class < b.sysfs_class : a.name < b.name;
  });
  return out;
}

}  // namespace gpuqual
