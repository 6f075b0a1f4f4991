#include "core/base/yaml_tree.hpp"

#include <fmt/format.h>
#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <charconv>
#include <limits>
#include <sstream>
#include <string_view>

#include "core/base/input_error.hpp"

namespace gpuqual {

using nlohmann::json;

namespace {

std::string at(const YAML::Mark& mark) {
  if (mark.is_null()) return "";
  return fmt::format("line {}, column {}", mark.line + 1, mark.column + 1);
}

// Records where each document starts and ignores the rest of the events.
class DocumentStarts : public YAML::EventHandler {
 public:
  std::vector<YAML::Mark> marks;
  void OnDocumentStart(const YAML::Mark& mark) override { marks.push_back(mark); }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t, const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                       YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {
  }
  void OnMapEnd() override {}
};

// The one document of `text`. yaml-cpp 0.7's LoadAll never returns on some inputs (a top-level
// ',' yields an endless stream of empty documents until memory runs out: found by the fuzzer),
// so documents are counted with a parse that stops at the second one, and only then loaded.
YAML::Node load_single_document(const std::string& text, const std::string& origin) {
  std::istringstream in(text);
  YAML::Parser parser(in);
  DocumentStarts starts;
  while (starts.marks.size() < 2 && parser.HandleNextDocument(starts)) {
  }
  if (starts.marks.size() > 1) {
    throw InputError(origin, at(starts.marks[1]), "more than one YAML document (a '---' separator?)");
  }
  return YAML::Load(text);
}

// Offset of the first byte that is not well-formed UTF-8, or npos. Strings end up in JSON
// reports, whose writer refuses invalid UTF-8; a baseline with such bytes is rejected up front.
std::size_t invalid_utf8_at(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    int extra = 0;
    unsigned min = 0;
    if (c < 0x80) {
      ++i;
      continue;
    } else if ((c & 0xE0) == 0xC0) {
      extra = 1, min = 0x80;
    } else if ((c & 0xF0) == 0xE0) {
      extra = 2, min = 0x800;
    } else if ((c & 0xF8) == 0xF0) {
      extra = 3, min = 0x10000;
    } else {
      return i;
    }
    if (i + extra >= s.size()) return i;  // truncated sequence
    unsigned cp = c & (0x3F >> extra);
    for (int k = 1; k <= extra; ++k) {
      const auto cc = static_cast<unsigned char>(s[i + k]);
      if ((cc & 0xC0) != 0x80) return i;
      cp = (cp << 6) | (cc & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return i;
    i += extra + 1;
  }
  return std::string_view::npos;
}

bool is_one_of(std::string_view s, std::initializer_list<std::string_view> options) {
  for (auto o : options) {
    if (s == o) return true;
  }
  return false;
}

// A plain (unquoted, untagged) scalar, typed by the YAML 1.2 core schema.
json resolve_plain(const std::string& s) {
  if (is_one_of(s, {"", "~", "null", "Null", "NULL"})) return nullptr;
  if (is_one_of(s, {"true", "True", "TRUE"})) return true;
  if (is_one_of(s, {"false", "False", "FALSE"})) return false;
  if (is_one_of(s, {".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF"}))
    return std::numeric_limits<double>::infinity();
  if (is_one_of(s, {"-.inf", "-.Inf", "-.INF"})) return -std::numeric_limits<double>::infinity();
  if (is_one_of(s, {".nan", ".NaN", ".NAN"})) return std::numeric_limits<double>::quiet_NaN();
  const char* first = s.data();
  const char* last = s.data() + s.size();
  if (*first == '+') ++first;  // from_chars takes no leading '+'
  if (first == last) return s;
  std::int64_t i = 0;
  auto ri = std::from_chars(first, last, i);
  if (ri.ec == std::errc() && ri.ptr == last) return i;
  // Core-schema floats need a digit; from_chars would also take "inf"/"nan" spelled without the
  // dot, which YAML treats as strings.
  if (s.find_first_of("0123456789") == std::string::npos) return s;
  double d = 0;
  auto rd = std::from_chars(first, last, d, std::chars_format::general);
  if (rd.ec == std::errc() && rd.ptr == last) return d;
  if (rd.ec == std::errc::result_out_of_range && rd.ptr == last)
    return std::numeric_limits<double>::infinity();
  return s;
}

class Converter {
 public:
  Converter(const std::string& origin, const YamlLimits& limits, YamlTree& tree)
      : origin_(origin), limits_(limits), tree_(tree) {}

  json convert(const YAML::Node& node, const std::string& path, int depth) {
    if (++nodes_ > limits_.max_nodes) {
      throw InputError(origin_, at(node.Mark()),
                       fmt::format("more than {} YAML nodes (alias expansion?)", limits_.max_nodes));
    }
    if (depth > limits_.max_depth) {
      throw InputError(origin_, at(node.Mark()),
                       fmt::format("nesting deeper than {} levels", limits_.max_depth));
    }
    switch (node.Type()) {
      case YAML::NodeType::Undefined:
      case YAML::NodeType::Null:
        return nullptr;
      case YAML::NodeType::Scalar:
        return scalar(node);
      case YAML::NodeType::Sequence: {
        json arr = json::array();
        std::size_t i = 0;
        for (auto it = node.begin(); it != node.end(); ++it) {
          const YAML::Node item = *it;  // by value: the iterator yields temporaries
          const std::string p = path + "[" + std::to_string(i++) + "]";
          remember(p, item.Mark());
          arr.push_back(convert(item, p, depth + 1));
        }
        return arr;
      }
      case YAML::NodeType::Map: {
        json obj = json::object();
        for (auto it = node.begin(); it != node.end(); ++it) {
          const YAML::Node key = it->first;  // by value, as above
          if (!key.IsScalar()) throw InputError(origin_, at(key.Mark()), "a key must be a plain string");
          const std::string& k = key.Scalar();
          if (obj.contains(k))
            throw InputError(origin_, at(key.Mark()), fmt::format("duplicate key \"{}\"", k));
          const std::string p = path + "." + k;
          remember(p, key.Mark());
          const YAML::Node value = it->second;
          obj[k] = convert(value, p, depth + 1);
        }
        return obj;
      }
    }
    return nullptr;
  }

 private:
  json scalar(const YAML::Node& node) {
    const std::string& tag = node.Tag();
    const std::string& s = node.Scalar();
    if (tag == "?") return resolve_plain(s);
    if (tag == "!" || tag == "tag:yaml.org,2002:str") return s;  // quoted, or explicitly a string
    throw InputError(origin_, at(node.Mark()), fmt::format("unsupported YAML tag \"{}\"", tag));
  }

  void remember(const std::string& path, const YAML::Mark& mark) {
    if (!mark.is_null()) tree_.lines.emplace(path, mark.line + 1);
  }

  const std::string& origin_;
  const YamlLimits& limits_;
  YamlTree& tree_;
  std::size_t nodes_ = 0;
};

}  // namespace

int YamlTree::line_of(const std::string& path) const {
  std::string p = path;
  while (!p.empty()) {
    if (auto it = lines.find(p); it != lines.end()) return it->second;
    const auto cut = p.find_last_of(".[");
    if (cut == std::string::npos || cut == 0) break;
    p.resize(cut);
  }
  return 0;
}

YamlTree parse_yaml_tree(const std::string& text, const std::string& origin, const YamlLimits& limits) {
  if (text.size() > limits.max_bytes) {
    throw InputError(
        origin, "",
        fmt::format("input is {} bytes, over the limit of {} bytes", text.size(), limits.max_bytes));
  }
  if (text.find('\0') != std::string::npos) throw InputError(origin, "", "binary data (NUL byte), not text");
  if (auto bad = invalid_utf8_at(text); bad != std::string_view::npos) {
    throw InputError(origin, fmt::format("byte {}", bad), "not UTF-8 text (binary data?)");
  }
  YAML::Node doc;
  try {
    doc = load_single_document(text, origin);
  } catch (const YAML::DeepRecursion& e) {
    throw InputError(origin, at(e.mark), "nesting too deep");
  } catch (const YAML::Exception& e) {
    throw InputError(origin, at(e.mark), "YAML syntax error: " + e.msg);
  }
  if (!doc.IsDefined() || doc.IsNull()) {
    throw InputError(origin, "", "no YAML content (empty, or only comments)");
  }
  YamlTree tree;
  tree.lines.emplace("$", doc.Mark().is_null() ? 1 : doc.Mark().line + 1);
  Converter conv(origin, limits, tree);
  tree.root = conv.convert(doc, "$", 0);
  return tree;
}

void rethrow_with_line(const YamlTree& tree) {
  try {
    throw;
  } catch (const InputError& e) {
    if (e.where().rfind("$", 0) != 0) throw;
    const int line = tree.line_of(e.where());
    if (line == 0) throw;
    throw InputError(e.file(), fmt::format("line {}: {}", line, e.where()), e.problem());
  }
}

}  // namespace gpuqual
