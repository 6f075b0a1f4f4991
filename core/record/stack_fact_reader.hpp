#pragma once
// The reading rule of stack facts (core/record/stack_inventory.hpp) in a run record, shared by both
// record readers (record_json.cpp on nlohmann, gate_record_reader.cpp on simdjson) so they
// accept and reject exactly the same objects with the same first error:
//   - a fact is a string, or null (or absent) with its reason in the object's `unread` map;
//   - null without a reason, a reason for a fact that was read, or a reason naming no fact of
//     the object is an error.
// `Obj` is either reader's field accessor: has(key), str(key), fail(field, problem).
#include <map>
#include <set>
#include <string>

#include "core/record/stack_inventory.hpp"

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

// Reads one whole `node.stack` object through `o`. The readers differ only in how they reach
// JSON: `string_map(obj, key)` returns an object field of strings ({} when absent or null), and
// `elements(obj, key, fn)` type-checks the array field `key` and calls fn(element accessor) for
// each element. The caller calls o.finish().
template <class Obj, class StringMap, class Elements>
StackInventory read_stack_object(Obj& o, StringMap&& string_map, Elements&& elements) {
  auto read_facts = [&](Obj& x, auto& target, auto each) {
    StackFactReader<Obj> r(x, string_map(x, "unread"));
    each(target, [&](const char* key, StackFact& f) { f = r.fact(key); });
    r.finish();
  };
  StackInventory s;
  StackFactReader<Obj> r(o, string_map(o, "unread"));
  for_each_stack_fact(s, [&](const char* key, StackFact& f) { f = r.fact(key); });
  if (o.has("nics")) {
    s.nics.emplace();
    elements(o, "nics", [&](Obj& n) {
      NicStack nic;
      read_facts(n, nic, [](NicStack& x, auto fn) { for_each_nic_fact(x, fn); });
      nic.name = n.nonempty_str("name");
      nic.sysfs_class = n.nonempty_str("class");
      if (!is_nic_class(nic.sysfs_class)) n.fail("class", "must be infiniband or net");
      nic.pci_address = n.str("pci_address");
      n.finish();
      s.nics->push_back(std::move(nic));
    });
    r.read_field("nics");
  } else {
    o.str_or("nics", "");  // a null list is known to the accessor's finish()
    s.nics_reason = r.reason("nics");
  }
  elements(o, "gpu_firmware", [&](Obj& g) {
    GpuFirmware fw;
    read_facts(g, fw, [](GpuFirmware& x, auto fn) { for_each_gpu_firmware_fact(x, fn); });
    fw.gpu = static_cast<int>(g.integer("gpu", 0, 1023));
    fw.uuid = g.str("uuid");
    g.finish();
    s.gpu_firmware.push_back(std::move(fw));
  });
  s.platform = string_map(o, "platform");
  for (const auto& [name, version] : s.platform) {
    if (name.empty()) o.fail("platform", "a platform component needs a name");
  }
  r.finish();
  return s;
}

}  // namespace gpuqual
