#include "core/fleet/node_selector.hpp"

#include <algorithm>
#include <charconv>

namespace gpuqual {

std::optional<long long> selector_integer(const std::string& text) {
  // from_chars takes a leading '-' but not '+', which ParseInt also accepts.
  const char* first = text.data();
  const char* last = text.data() + text.size();
  if (first != last && *first == '+') ++first;
  if (first == last || (*first == '-' && text.front() == '+')) return std::nullopt;
  long long v = 0;
  auto [ptr, ec] = std::from_chars(first, last, v);
  if (ec != std::errc() || ptr != last) return std::nullopt;
  return v;
}

bool NodeSelectorRequirement::matches_value(const std::string* value) const {
  const bool listed = value != nullptr && std::find(values.begin(), values.end(), *value) != values.end();
  switch (op) {
    case Op::in:
      return listed;
    case Op::not_in:
      return !listed;  // a node without the label is "not in" (labels.Selector semantics)
    case Op::exists:
      return value != nullptr;
    case Op::does_not_exist:
      return value == nullptr;
    case Op::gt:
    case Op::lt: {
      if (value == nullptr || values.size() != 1) return false;
      const auto have = selector_integer(*value);
      const auto bound = selector_integer(values.front());
      if (!have || !bound) return false;  // not an integer: no match, as the scheduler has it
      return op == Op::gt ? *have > *bound : *have < *bound;
    }
  }
  return false;
}

bool NodeSelectorRequirement::matches(const Labels& labels) const {
  const auto it = labels.find(key);
  return matches_value(it == labels.end() ? nullptr : &it->second);
}

bool NodeSelectorTerm::matches(const std::string& node_name, const Labels& node_labels) const {
  if (match_expressions.empty() && match_fields.empty()) return false;  // "matches no objects"
  const bool labels_match =
      std::all_of(match_expressions.begin(), match_expressions.end(),
                  [&](const NodeSelectorRequirement& r) { return r.matches(node_labels); });
  return labels_match && std::all_of(match_fields.begin(), match_fields.end(), [&](const auto& r) {
           return r.matches_value(r.key == kNodeNameField ? &node_name : nullptr);
         });
}

bool NodeSelector::matches(const std::string& node_name, const Labels& node_labels) const {
  return std::any_of(terms.begin(), terms.end(),
                     [&](const NodeSelectorTerm& t) { return t.matches(node_name, node_labels); });
}

bool node_affinity_matches(const Labels& node_selector, const std::optional<NodeSelector>& required,
                           const std::string& node_name, const Labels& node_labels) {
  for (const auto& [k, v] : node_selector) {
    const auto it = node_labels.find(k);
    if (it == node_labels.end() || it->second != v) return false;
  }
  return !required || required->matches(node_name, node_labels);
}

}  // namespace gpuqual
