#pragma once
// The one error type for bad input (exit code 3). Its message is one line:
//   "<file>: <json path or line>: <problem>"
// so an operator sees which file, where, and what is wrong. what() is already escaped for a
// terminal (core/base/text_escape.hpp: terminal_line), wherever it is printed; file(), where() and
// problem() are the parts as given.
#include <stdexcept>
#include <string>

namespace gpuqual {

class InputError : public std::runtime_error {
 public:
  InputError(std::string file, std::string where, std::string problem);
  const std::string& file() const { return file_; }
  const std::string& where() const { return where_; }
  const std::string& problem() const { return problem_; }

 private:
  std::string file_, where_, problem_;
};

}  // namespace gpuqual
