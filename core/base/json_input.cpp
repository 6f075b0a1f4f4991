#include "core/base/json_input.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>

#include "core/base/input_error.hpp"

namespace gpuqual {

namespace {

// Appends what `read` gives until end of file or until more than `limit` bytes came (the caller
// then judges a text over its limit); `expected` bytes (a regular file's size) end it without
// the extra read that would see the end. A short read (a file shrinking, a pipe) is no error.
void read_all(int fd, const std::string& path, std::string& text, std::size_t limit, std::size_t expected) {
  char buf[65536];
  while (text.size() <= limit && text.size() != expected) {
    const ssize_t got = ::read(fd, buf, sizeof buf);
    if (got == 0) return;
    if (got < 0) {
      if (errno == EINTR) continue;
      throw InputError(path, "", fmt::format("read failed: {}", std::strerror(errno)));
    }
    text.append(buf, static_cast<std::size_t>(got));
  }
}

struct Fd {
  int fd;
  ~Fd() { ::close(fd); }
};

}  // namespace

void read_text_file_into(const std::string& path, std::size_t max_bytes, std::string& text,
                         std::size_t padding) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    throw InputError(path, "", fmt::format("cannot open: {}", std::strerror(errno)));
  if (S_ISDIR(st.st_mode)) throw InputError(path, "", "is a directory");
  const bool pipe = S_ISFIFO(st.st_mode);
  if (!S_ISREG(st.st_mode) && !pipe) throw InputError(path, "", "is not a regular file");
  const Fd file{::open(path.c_str(), O_RDONLY | O_CLOEXEC)};
  if (file.fd < 0) throw InputError(path, "", fmt::format("cannot open: {}", std::strerror(errno)));
  text.clear();
  if (pipe) {
    // A pipe (`<(cat record.json)`, /dev/stdin from a pipe) has no size to check first: read at
    // most one byte over the limit and judge what came.
    read_all(file.fd, path, text, max_bytes, static_cast<std::size_t>(-1));
    if (text.size() > max_bytes)
      throw InputError(path, "", fmt::format("input is over the limit of {} bytes", max_bytes));
  } else {
    const auto size = static_cast<std::size_t>(st.st_size);
    if (size > max_bytes)
      throw InputError(path, "",
                       fmt::format("file is {} bytes, over the limit of {} bytes", size, max_bytes));
    text.reserve(size + 1 + padding);
    read_all(file.fd, path, text, size, size);
  }
  text.reserve(text.size() + padding);
  if (text.find_first_not_of(" \t\r\n") == std::string::npos) throw InputError(path, "", "file is empty");
  if (text.find('\0') != std::string::npos) throw InputError(path, "", "binary data (NUL byte), not text");
}

std::string read_text_file(const std::string& path, std::size_t max_bytes) {
  std::string text;
  read_text_file_into(path, max_bytes, text, 0);
  return text;
}

nlohmann::json parse_json_text(std::string_view text, const std::string& origin, const JsonLimits& limits) {
  if (text.size() > limits.max_bytes) {
    throw InputError(
        origin, "",
        fmt::format("input is {} bytes, over the limit of {} bytes", text.size(), limits.max_bytes));
  }
  if (text.find_first_not_of(" \t\r\n") == std::string_view::npos)
    throw InputError(origin, "", "input is empty");
  bool too_deep = false;
  // The callback sees every value with its depth; refusing deep input here bounds the memory
  // and the recursion of everything that later walks the tree.
  auto guard = [&](int depth, nlohmann::json::parse_event_t, nlohmann::json&) {
    if (depth > limits.max_depth) too_deep = true;
    return !too_deep;
  };
  try {
    nlohmann::json j = nlohmann::json::parse(text.begin(), text.end(), guard, /*allow_exceptions=*/true);
    if (too_deep)
      throw InputError(origin, "", fmt::format("nesting deeper than {} levels", limits.max_depth));
    return j;
  } catch (const nlohmann::json::exception& e) {  // parse_error, and out_of_range for 1e999
    if (too_deep)
      throw InputError(origin, "", fmt::format("nesting deeper than {} levels", limits.max_depth));
    // nlohmann's message starts with "[json.exception.parse_error.101] "; keep the useful part.
    std::string what = e.what();
    if (auto pos = what.find("] "); pos != std::string::npos) what = what.substr(pos + 2);
    throw InputError(origin, "", "malformed JSON: " + what);
  }
}

nlohmann::json read_json_file(const std::string& path, const JsonLimits& limits) {
  return parse_json_text(read_text_file(path, limits.max_bytes), path, limits);
}

}  // namespace gpuqual
