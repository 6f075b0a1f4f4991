#include "core/base/input_error.hpp"

#include "core/base/text_escape.hpp"

namespace gpuqual {

namespace {
// One line with its controls shown as escapes (core/base/text_escape.hpp): a file name or a record
// value in the message cannot drive the terminal the error is printed to, nor add a line to it.
std::string compose(const std::string& file, const std::string& where, const std::string& problem) {
  std::string msg = file;
  if (!where.empty()) msg += ": " + where;
  msg += ": " + problem;
  return terminal_line(msg);
}
}  // namespace

InputError::InputError(std::string file, std::string where, std::string problem)
    : std::runtime_error(compose(file, where, problem)),
      file_(std::move(file)),
      where_(std::move(where)),
      problem_(std::move(problem)) {}

}  // namespace gpuqual
