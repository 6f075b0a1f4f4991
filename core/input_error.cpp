#include "core/input_error.hpp"

namespace gpuqual {

namespace {
std::string one_line(std::string text) {
  for (char& c : text) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  return text;
}
std::string compose(const std::string& file, const std::string& where, const std::string& problem) {
  std::string msg = file;
  if (!where.empty()) msg += ": " + where;
  msg += ": " + problem;
  return one_line(msg);
}
}  // namespace

InputError::InputError(std::string file, std::string where, std::string problem)
    : std::runtime_error(compose(file, where, problem)),
      file_(std::move(file)),
      where_(std::move(where)),
      problem_(std::move(problem)) {}

}  // namespace gpuqual
