#include "device/host/platform_firmware.hpp"

#include "device/host/fact_file.hpp"

namespace gpuqual {

void read_platform_firmware(StackInventory& s, const std::string& dmi_dir) {
  // A machine without DMI (most Arm boards, some VMs) has no dmi/id folder: each fact then
  // says "<path>: No such file or directory", which is the truth.
  s.bios_vendor = read_fact_file(dmi_dir + "/bios_vendor");
  s.bios_version = read_fact_file(dmi_dir + "/bios_version");
  s.bios_date = read_fact_file(dmi_dir + "/bios_date");
  s.board_vendor = read_fact_file(dmi_dir + "/board_vendor");
  s.board_name = read_fact_file(dmi_dir + "/board_name");
}

}  // namespace gpuqual
