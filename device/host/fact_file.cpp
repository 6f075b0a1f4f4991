#include "device/host/fact_file.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

namespace gpuqual {

StackFact read_fact_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) return StackFact::unread(path + ": " + std::strerror(errno));
  std::string line;
  std::getline(in, line);
  if (in.bad()) return StackFact::unread(path + ": read error");
  while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t')) line.pop_back();
  return StackFact::read(line);
}

StackFact read_link_name(const std::string& link) {
  std::error_code ec;
  const std::filesystem::path target = std::filesystem::read_symlink(link, ec);
  if (ec) return StackFact::unread(link + ": " + ec.message());
  return StackFact::read(target.filename().string());
}

}  // namespace gpuqual
