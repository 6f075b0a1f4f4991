#include "core/record/record_io.hpp"

#include <nlohmann/json.hpp>
#include <string_view>

#include "core/base/atomic_file.hpp"
#include "core/record/record_json.hpp"
#include "core/record/record_reader.hpp"

namespace gpuqual {

RunRecord read_record(const std::string& path) { return StreamingRecordReader().read(path); }

namespace {

// A line that holds one JSON number and perhaps the comma after it: "      771.25,".
bool is_number_line(std::string_view line, std::string_view& number) {
  const auto first = line.find_first_not_of(' ');
  if (first == std::string_view::npos) return false;
  std::string_view rest = line.substr(first);
  if (!rest.empty() && rest.back() == ',') rest.remove_suffix(1);
  if (rest.empty()) return false;
  for (char c : rest) {
    if (!((c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E')) return false;
  }
  number = rest;
  return true;
}

}  // namespace

std::string collapse_number_arrays(const std::string& pretty) {
  // dump() escapes newlines inside strings, so a line that ends in '[' opens an array, and the
  // array's elements are the following lines up to the one that is only ']' (plus a comma).
  std::string out;
  out.reserve(pretty.size());
  std::size_t pos = 0;
  while (pos < pretty.size()) {
    std::size_t eol = pretty.find('\n', pos);
    if (eol == std::string::npos) eol = pretty.size();
    const std::string_view line(pretty.data() + pos, eol - pos);
    pos = eol + 1;
    if (line.empty() || line.back() != '[') {
      out.append(line);
      if (eol < pretty.size()) out.push_back('\n');
      continue;
    }
    // Try to read the whole array as numbers; if any element is not one, keep the lines as they are.
    std::string joined(line);
    std::size_t scan = pos;
    bool all_numbers = true;
    bool first = true;
    while (scan < pretty.size()) {
      std::size_t e = pretty.find('\n', scan);
      if (e == std::string::npos) e = pretty.size();
      const std::string_view element(pretty.data() + scan, e - scan);
      const auto c = element.find_first_not_of(' ');
      if (c != std::string_view::npos && element[c] == ']') {
        joined.append(element.substr(c));  // "]" or "],"
        scan = e + 1;
        break;
      }
      std::string_view number;
      if (!is_number_line(element, number)) {
        all_numbers = false;
        break;
      }
      if (!first) joined.append(", ");
      joined.append(number);
      first = false;
      scan = e + 1;
    }
    if (all_numbers && !first) {
      out.append(joined);
      out.push_back('\n');
      pos = scan;
    } else {
      out.append(line);
      out.push_back('\n');
    }
  }
  return out;
}

std::string record_to_text(const RunRecord& record) {
  return collapse_number_arrays(to_json(record).dump(2)) + "\n";
}

void write_record(const std::string& path, const RunRecord& record) {
  write_file_atomic(path, record_to_text(record));
}

}  // namespace gpuqual
