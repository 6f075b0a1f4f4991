#pragma once
// The reading rule of stack facts (core/stack_inventory.hpp) in a run record, shared by both
// record readers (record_json.cpp on nlohmann, gate_record_reader.cpp on simdjson) so they
// accept and reject exactly the same objects with the same first error:
//   - a fact is a string, or null (or absent) with its reason in the object's `unread` map;
//   - null without a reason, a reason for a fact that was read, or a reason naming no fact of
//     the object is an error.
// `Obj` is either reader's field accessor: has(key), str(key), fail(field, problem).
#include <map>
#include <set>
#include <string>

#include "core/stack_inventory.hpp"

namespace gpuqual {

template <class Obj>
class StackFactReader {
 public:
  // `unread` is the object's `unread` map as read (empty when the object has none).
  StackFactReader(Obj& o, std::map<std::string, std::string> unread) : o_(o), unread_(std::move(unread)) {}

  StackFact fact(const std::string& key) {
    if (o_.has(key.c_str())) {
      StackFact f = StackFact::read(o_.str(key.c_str()));
      if (unread_.count(key)) o_.fail("unread." + key, "a reason is given for a fact that was read");
      facts_.insert(key);
      return f;
    }
    o_.str_or(key.c_str(), "");  // marks a null field as known to the accessor's finish()
    return StackFact::unread(reason(key));
  }

  // The reason for a null field that is not a plain fact (a list): required like a fact's.
  std::string reason(const std::string& key) {
    facts_.insert(key);
    auto it = unread_.find(key);
    if (it == unread_.end() || it->second.empty()) o_.fail(key, "null without a reason in unread");
    return it->second;
  }

  // A field that was read (a list) must not have a reason too.
  void read_field(const std::string& key) {
    facts_.insert(key);
    if (unread_.count(key)) o_.fail("unread." + key, "a reason is given for a fact that was read");
  }

  // Every reason must belong to a fact of this object (checked in key order, as both readers list).
  void finish() {
    for (const auto& [key, why] : unread_) {
      if (!facts_.count(key)) o_.fail("unread." + key, "names no fact of this object");
    }
  }

 private:
  Obj& o_;
  std::map<std::string, std::string> unread_;
  std::set<std::string> facts_;
};

}  // namespace gpuqual
