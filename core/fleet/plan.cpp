#include "core/fleet/plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <set>
#include <tuple>
#include <unordered_map>

#include "core/base/plural.hpp"
#include "core/fleet/plan_placement.hpp"
#include "core/record/rack.hpp"
#include "core/verdict/driver_upgrade.hpp"

namespace gpuqual {

std::string_view to_string(NodeState s) {
  switch (s) {
    case NodeState::planned:
      return "planned";
    case NodeState::done:
      return "done";
    case NodeState::failed:
      return "failed";
    case NodeState::excluded:
      return "excluded";
    case NodeState::deferred:
      return "deferred";
  }
  return "deferred";
}

namespace {

// What draining one node would do: the pods it evicts and the PDB budget they take.
struct NodeWork {
  std::vector<std::size_t> pods;                      // evictable pods, by namespace/name
  std::vector<std::pair<std::size_t, int>> pdb_pods;  // PDB index → this node's pods under it
  int used_gpus = 0;                                  // by every unfinished pod
  int staying_gpus = 0;                               // by pods a drain leaves (DaemonSet, mirror)
  int evicted_gpu_pods = 0;
  bool capacity = false;  // its GPUs count as schedulable
  int class_id = -1;
};

// A pod without a controller that a drain would have to evict: `kubectl drain` refuses it
// without --force, and nothing would recreate it elsewhere, so it holds its node.
std::string unmanaged_reason(const ClusterPod& p) {
  return fmt::format(
      "pod {} {}: kubectl drain refuses it without --force and nothing would recreate it; "
      "it holds the node",
      p.key(),
      p.owners.empty() ? "is a bare pod (no ownerReferences)"
                       : "declares no controller (no ownerReference with controller: true)");
}

std::string owner_text(const ClusterPod& p) {
  if (p.owners.empty()) return "";
  return fmt::format(" ({} {})", p.owners.front().kind, p.owners.front().name);
}

class Planner {
 public:
  Planner(const Cluster& c, const PlanPolicy& policy, const NodeOutcomes& verdicts)
      : c_(c), policy_(policy), verdicts_(verdicts) {}

  Plan run() {
    index_nodes();
    index_pods();
    size_classes();
    warn_absent_classes();
    judge_nodes();
    build_waves();
    finish();
    return std::move(plan_);
  }

 private:
  void index_nodes() {
    for (const ClusterNode& n : c_.nodes) {
      if (n.gpus > 0) nodes_.push_back(n);  // a node without GPUs is no part of a GPU rollout
    }
    std::sort(nodes_.begin(), nodes_.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
    for (std::size_t i = 0; i < nodes_.size(); ++i) by_name_.emplace(nodes_[i].name, i);
    rack_.resize(nodes_.size());
    for (std::size_t i = 0; i < nodes_.size(); ++i) {
      rack_[i] = rack_of(nodes_[i].labels, policy_.rack_label);
      if (!rack_[i].empty()) racks_[rack_[i]].push_back(i);
    }
    work_.resize(nodes_.size());
    reasons_.resize(nodes_.size());
    state_.assign(nodes_.size(), NodeState::deferred);
    hold_.resize(nodes_.size());
  }

  void index_pods() {
    std::vector<std::size_t> pdb_order(c_.pdbs.size());
    std::iota(pdb_order.begin(), pdb_order.end(), 0);
    std::sort(pdb_order.begin(), pdb_order.end(),
              [&](auto a, auto b) { return c_.pdbs[a].key() < c_.pdbs[b].key(); });
    for (std::size_t d : pdb_order) pdbs_in_ns_[c_.pdbs[d].ns].push_back(d);
    std::vector<std::size_t> order(c_.pods.size());
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](auto a, auto b) {
      const auto& x = c_.pods[a];
      const auto& y = c_.pods[b];
      return std::tie(x.ns, x.name) < std::tie(y.ns, y.name);
    });
    pod_pdbs_.resize(c_.pods.size());
    for (std::size_t p : order) {
      const ClusterPod& pod = c_.pods[p];
      if (pod.node.empty() || pod.finished()) continue;
      auto it = by_name_.find(pod.node);
      if (it == by_name_.end()) continue;
      NodeWork& w = work_[it->second];
      w.used_gpus += pod.gpus;
      if (pod.stays_on_drain()) {
        w.staying_gpus += pod.gpus;
        continue;
      }
      if (!pod.has_controller()) {  // not evicted, not placed: the node waits for it
        reasons_[it->second].push_back(unmanaged_reason(pod));
        continue;
      }
      w.pods.push_back(p);
      if (pod.gpus > 0) ++w.evicted_gpu_pods;
      if (auto ns = pdbs_in_ns_.find(pod.ns); ns != pdbs_in_ns_.end()) {
        for (std::size_t d : ns->second) {
          if (c_.pdbs[d].selector.matches(pod.labels)) pod_pdbs_[p].push_back(d);
        }
      }
      auto& reasons = reasons_[it->second];
      if (pod_pdbs_[p].size() > 1) {
        std::vector<std::string> names;
        for (std::size_t d : pod_pdbs_[p]) names.push_back(c_.pdbs[d].key());
        reasons.push_back(
            fmt::format("pod {} is covered by {} PDBs ({}): the eviction API refuses to evict it", pod.key(),
                        names.size(), fmt::join(names, ", ")));
      }
      for (std::size_t d : pod_pdbs_[p]) {
        auto e = std::find_if(w.pdb_pods.begin(), w.pdb_pods.end(), [&](auto& x) { return x.first == d; });
        if (e == w.pdb_pods.end())
          w.pdb_pods.emplace_back(d, 1);
        else
          ++e->second;
      }
      if (policy_.training.blocks_drain(pod)) {
        if (policy_.training.before_drain == TrainingPolicy::BeforeDrain::done) {
          reasons.push_back(fmt::format("training pod {}{} still running (before_drain: done)", pod.key(),
                                        owner_text(pod)));
        } else {
          reasons.push_back(fmt::format("training pod {}{} has no checkpoint ({}: \"true\" not set)",
                                        pod.key(), owner_text(pod), policy_.training.checkpoint_annotation));
        }
      }
    }
  }

  // A class the policy names that no GPU node of the cluster has: most likely a misspelt slug,
  // whose floor and limits then protect nothing.
  void warn_absent_classes() {
    for (const auto& [name, limits] : policy_.classes) {
      if (class_ids_.count(name) != 0) continue;
      plan_.warnings.push_back(fmt::format(
          "policy class {} is not in the cluster: no GPU node has that class (its floor and limits apply to "
          "nothing; is the slug right?)",
          name));
    }
  }

  void size_classes() {
    std::map<std::string, ClassCapacity> classes;
    for (std::size_t i = 0; i < nodes_.size(); ++i) {
      const ClusterNode& n = nodes_[i];
      ClassCapacity& cc = classes[n.hardware_class];
      cc.hardware_class = n.hardware_class;
      ++cc.nodes;
      cc.gpus += n.gpus;
      NodeState s = NodeState::deferred;  // "to plan" until judged below
      auto v = verdicts_.find(n.name);
      // The GPU Operator's driver upgrade (driver_upgrade.hpp): a skipped node is the user's hold,
      // out like an excluded one; a node it is upgrading waits for it, whatever its last verdict
      // said of the old driver. A failed node stays failed: it is out either way.
      const OperatorHoldReason hold = operator_hold(n.labels);
      if (policy_.exclude_nodes.count(n.name) != 0)
        s = NodeState::excluded;
      else if (hold.hold == OperatorHold::skipped)
        s = NodeState::excluded;
      else if (v != verdicts_.end() && v->second == Outcome::fail)
        s = NodeState::failed;
      else if (v != verdicts_.end() && is_qualified(v->second) && hold.hold == OperatorHold::none)
        s = NodeState::done;
      if (s != NodeState::failed && policy_.exclude_nodes.count(n.name) == 0) hold_[i] = hold.reason;
      state_[i] = s;
      // Failed qualification: out of service until repaired, so no longer capacity.
      work_[i].capacity = n.ready && !n.unschedulable && s != NodeState::failed;
      if (work_[i].capacity) cc.schedulable += n.gpus;
    }
    for (auto& [name, cc] : classes) {
      class_ids_.emplace(name, static_cast<int>(plan_.classes.size()));
      auto p = policy_.classes.find(name);
      if (p != policy_.classes.end()) {
        cc.floor = p->second.floor_gpus(cc.gpus);
        cc.floor_text = p->second.floor_text();
        cc.unmet = cc.floor > cc.schedulable;
        limits_.push_back(&p->second);
      } else {
        limits_.push_back(nullptr);
      }
      plan_.classes.push_back(cc);
    }
    for (std::size_t i = 0; i < nodes_.size(); ++i)
      work_[i].class_id = class_ids_.at(nodes_[i].hardware_class);
  }

  int cap_gpus(std::size_t i) const { return work_[i].capacity ? nodes_[i].gpus : 0; }
  int budget(int cid) const { return plan_.classes[cid].schedulable - plan_.classes[cid].floor; }

  // Reasons a node can never go under this policy; the ones found while indexing pods stay.
  void judge_nodes() {
    for (std::size_t i = 0; i < nodes_.size(); ++i) {
      if (state_[i] != NodeState::deferred) {
        reasons_[i].clear();  // done, failed or excluded: no wave to wait for
        continue;
      }
      if (!hold_[i].empty()) {  // the GPU Operator has it: nothing else to judge until it is done
        reasons_[i] = {hold_[i]};
        continue;
      }
      const int cid = work_[i].class_id;
      const ClassCapacity& cc = plan_.classes[cid];
      auto& r = reasons_[i];
      if (limits_[cid] == nullptr) {
        r.push_back(fmt::format("class {} is not in the policy (add it under classes:)", cc.hardware_class));
      } else if (cc.unmet) {
        r.push_back(
            fmt::format("the floor of {} GPUs ({}) is above the {} schedulable GPUs class {} has: the policy "
                        "cannot be met",
                        cc.floor, cc.floor_text, cc.schedulable, cc.hardware_class));
      } else if (cap_gpus(i) > budget(cid)) {
        r.push_back(
            fmt::format("capacity would fall below the floor: {} of {} schedulable {} GPUs would be left, "
                        "the floor is {}",
                        cc.schedulable - cap_gpus(i), cc.schedulable, cc.hardware_class, cc.floor));
      }
      for (std::string& why : pdb_overflows({i})) r.push_back(std::move(why));
      if (r.empty()) state_[i] = NodeState::planned;  // provisional: a wave is found below
    }
    judge_racks();
  }

  // A rack goes whole, so its nodes never run two drivers for longer than one wave: when one of
  // its nodes still to upgrade must wait, the rest wait with it; and its GPUs leave together, so
  // the floor and every PDB must allow all of them at once. Its done, failed and excluded nodes
  // are not in the wave.
  void judge_racks() {
    for (const auto& [rack, members] : racks_) {
      std::vector<std::size_t> pending;
      for (std::size_t i : members) {
        if (state_[i] == NodeState::planned || state_[i] == NodeState::deferred) pending.push_back(i);
      }
      const std::vector<std::string> why = rack_wait_reasons(rack, pending);
      for (std::size_t i : pending) {
        if (state_[i] != NodeState::planned || why.empty()) continue;
        state_[i] = NodeState::deferred;
        reasons_[i].insert(reasons_[i].end(), why.begin(), why.end());
      }
    }
  }

  std::vector<std::string> rack_wait_reasons(const std::string& rack,
                                             const std::vector<std::size_t>& pending) const {
    for (std::size_t i : pending) {
      if (state_[i] != NodeState::deferred) continue;
      return {
          fmt::format("rack {}: its node {} must wait ({}); a rack's nodes go in one wave, never on two "
                      "drivers",
                      rack, nodes_[i].name, reasons_[i].front())};
    }
    std::map<int, int> gpus;  // class → the rack's schedulable GPUs
    for (std::size_t i : pending) gpus[work_[i].class_id] += cap_gpus(i);
    std::vector<std::string> out;
    for (const auto& [cid, g] : gpus) {
      if (g <= budget(cid)) continue;
      const ClassCapacity& cc = plan_.classes[static_cast<std::size_t>(cid)];
      out.push_back(fmt::format(
          "rack {} goes whole: its {} nodes take {} of {} schedulable {} GPUs at once, "
          "{} would be left, the floor is {}",
          rack, pending.size(), g, cc.schedulable, cc.hardware_class, cc.schedulable - g, cc.floor));
    }
    for (std::string& r : pdb_overflows(pending))
      out.push_back(fmt::format("rack {} goes whole: {}", rack, r));
    return out;
  }

  // The nodes that may be upgraded, least disruptive first: fewest evicted GPU pods, then fewest
  // pods, then fewest GPUs in use; ties keep the nodes' order.
  std::vector<std::size_t> candidates_least_disruptive_first() const {
    std::vector<std::size_t> todo;
    for (std::size_t i = 0; i < nodes_.size(); ++i) {
      if (state_[i] == NodeState::planned) todo.push_back(i);
    }
    std::stable_sort(todo.begin(), todo.end(), [&](auto a, auto b) {
      const NodeWork& x = work_[a];
      const NodeWork& y = work_[b];
      return std::make_tuple(x.evicted_gpu_pods, x.pods.size(), x.used_gpus) <
             std::make_tuple(y.evicted_gpu_pods, y.pods.size(), y.used_gpus);
    });
    return todo;
  }

  // One wave of `members` (sorted by name): its nodes, what each class has out and left, and each
  // PDB it touched with the budget it used, which is then given back for the next wave.
  Wave make_wave(const std::vector<std::size_t>& members, const std::vector<int>& out_nodes,
                 const std::vector<int>& out_gpus, std::vector<std::size_t>& touched,
                 std::vector<int>& pdb_used, bool canary) {
    Wave w;
    w.index = static_cast<int>(plan_.waves.size());
    w.canary = canary;
    for (std::size_t i : members) {
      w.nodes.push_back(nodes_[i].name);
      wave_of_[i] = w.index;
      if (!rack_[i].empty()) w.racks.push_back(rack_[i]);
    }
    std::sort(w.racks.begin(), w.racks.end());
    w.racks.erase(std::unique(w.racks.begin(), w.racks.end()), w.racks.end());
    for (std::size_t cid = 0; cid < plan_.classes.size(); ++cid) {
      if (out_nodes[cid] == 0) continue;
      const ClassCapacity& cc = plan_.classes[cid];
      w.classes.push_back(
          {cc.hardware_class, out_nodes[cid], out_gpus[cid], cc.schedulable - out_gpus[cid], cc.floor});
    }
    std::sort(touched.begin(), touched.end(),
              [&](auto a, auto b) { return c_.pdbs[a].key() < c_.pdbs[b].key(); });
    for (std::size_t d : touched) {
      w.pdbs.push_back({c_.pdbs[d].key(), pdb_used[d], c_.pdbs[d].disruptions_allowed});
      pdb_used[d] = 0;  // the next wave starts after these pods are back: full budget again
    }
    return w;
  }

  // The candidates as units that go whole: a node alone, or every candidate of its rack, in the
  // order the first of them comes.
  std::vector<std::vector<std::size_t>> units_of(const std::vector<std::size_t>& todo) const {
    std::vector<std::vector<std::size_t>> units;
    std::map<std::string, std::size_t> unit_of_rack;
    for (std::size_t i : todo) {
      if (rack_[i].empty()) {
        units.push_back({i});
        continue;
      }
      auto [it, fresh] = unit_of_rack.emplace(rack_[i], units.size());
      if (fresh) units.emplace_back();
      units[it->second].push_back(i);
    }
    return units;
  }

  // What one wave has taken so far: per class its units (a rack counts as one against canary and
  // max_nodes_out), nodes and schedulable GPUs out, and per PDB its evictions.
  struct WaveLoad {
    std::vector<int> units, nodes, gpus;
    std::vector<std::size_t> touched;
  };

  bool unit_fits(const std::vector<std::size_t>& unit, const WaveLoad& load, const std::vector<int>& pdb_used,
                 bool canary) const {
    std::map<int, int> gpus;
    for (std::size_t i : unit) gpus[work_[i].class_id] += cap_gpus(i);
    for (const auto& [cid, g] : gpus) {
      const int limit = canary ? limits_[cid]->canary : limits_[cid]->max_nodes_out;
      if (load.units[cid] >= limit || load.gpus[cid] + g > budget(cid)) return false;
    }
    for (const auto& [d, count] : pdb_pods_of(unit)) {
      if (pdb_used[d] + count > c_.pdbs[d].disruptions_allowed) return false;
    }
    return true;
  }

  void take(const std::vector<std::size_t>& unit, WaveLoad& load, std::vector<int>& pdb_used) {
    std::set<int> classes;
    for (std::size_t i : unit) {
      const int cid = work_[i].class_id;
      if (classes.insert(cid).second) ++load.units[cid];
      ++load.nodes[cid];
      load.gpus[cid] += cap_gpus(i);
    }
    for (const auto& [d, count] : pdb_pods_of(unit)) {
      if (pdb_used[d] == 0) load.touched.push_back(d);
      pdb_used[d] += count;
    }
  }

  // Waves: the candidates, least disruptive first, taken in that order into each wave (a rack
  // whole) while the class's node and GPU limits and every PDB's budget allow. Then the wave's
  // GPU pods are placed on the nodes that stay, and every evicted pod that found a node moves
  // there in the model: when that node's wave comes, it is evicted again and takes its PDB's
  // budget again.
  void build_waves() {
    std::vector<std::vector<std::size_t>> todo = units_of(candidates_least_disruptive_first());
    PlacementIndex index(nodes_);
    for (std::size_t i = 0; i < nodes_.size(); ++i) {
      // Nodes with a verdict that passed are upgraded already: evicted pods go there first.
      if (work_[i].capacity)
        index.insert(i, nodes_[i].gpus - work_[i].used_gpus, state_[i] == NodeState::done);
    }
    std::vector<int> pdb_used(c_.pdbs.size(), 0);
    const std::size_t nclasses = plan_.classes.size();
    bool canary = true;
    while (!todo.empty()) {
      WaveLoad load{
          std::vector<int>(nclasses, 0), std::vector<int>(nclasses, 0), std::vector<int>(nclasses, 0), {}};
      std::vector<std::size_t> members;
      std::vector<std::vector<std::size_t>> later;
      for (const auto& unit : todo) {
        if (auto why = pdb_overflows(unit); !why.empty()) {  // pods moved here by earlier waves
          for (std::size_t i : unit) {
            state_[i] = NodeState::deferred;
            for (const std::string& r : why) reasons_[i].push_back(r + " (moved here by earlier waves)");
          }
          continue;
        }
        if (!unit_fits(unit, load, pdb_used, canary)) {
          later.push_back(unit);
          continue;
        }
        take(unit, load, pdb_used);
        members.insert(members.end(), unit.begin(), unit.end());
      }
      if (members.empty()) {  // cannot happen: a candidate fits an empty wave by construction
        for (const auto& unit : later) {
          for (std::size_t i : unit) {
            state_[i] = NodeState::deferred;
            reasons_[i].push_back("fits in no wave");
          }
        }
        break;
      }
      std::vector<std::string> ranked;  // the order they were taken in: least disruptive first
      for (std::size_t i : members) ranked.push_back(nodes_[i].name);
      std::sort(members.begin(), members.end());  // by name
      Wave w = make_wave(members, load.nodes, load.gpus, load.touched, pdb_used, canary);
      w.by_rank = std::move(ranked);
      drain(w, members, index);
      plan_.waves.push_back(std::move(w));
      todo = std::move(later);
      canary = false;
    }
  }

  // PDB index → the unit's pods under it, in the order its nodes first use each.
  std::vector<std::pair<std::size_t, int>> pdb_pods_of(const std::vector<std::size_t>& unit) const {
    std::vector<std::pair<std::size_t, int>> out;
    for (std::size_t i : unit) {
      for (const auto& pair : work_[i].pdb_pods) {
        const std::size_t d = pair.first;
        auto e = std::find_if(out.begin(), out.end(), [d](auto& x) { return x.first == d; });
        if (e == out.end())
          out.emplace_back(d, pair.second);
        else
          e->second += pair.second;
      }
    }
    return out;
  }

  // Every PDB these nodes (one, or a rack's) have more of their pods under than it allows, as reasons.
  std::vector<std::string> pdb_overflows(const std::vector<std::size_t>& unit) const {
    std::vector<std::string> out;
    for (auto [d, count] : pdb_pods_of(unit)) {
      const ClusterPdb& pdb = c_.pdbs[d];
      if (count > pdb.disruptions_allowed) {
        out.push_back(fmt::format("PDB {} allows {}; {} {} of its pods", pdb.key(),
                                  plural(pdb.disruptions_allowed, "disruption"),
                                  unit.size() == 1 ? "the node has" : "the rack's nodes have", count));
      }
    }
    return out;
  }

  // The wave's evictions: each GPU pod placed first fit on a staying node of its class (upgraded
  // nodes first), and moved there; the wave's nodes come back empty of what they evicted, as
  // upgraded nodes.
  void drain(Wave& w, const std::vector<std::size_t>& members, PlacementIndex& index) {
    for (std::size_t i : members) index.remove(i);
    for (std::size_t i : members) {
      for (std::size_t p : work_[i].pods) {
        const ClusterPod& pod = c_.pods[p];
        PlannedEviction e;
        e.pod = pod.key();
        e.node = nodes_[i].name;
        e.gpus = pod.gpus;
        e.training = policy_.training.is_training(pod);
        for (std::size_t d : pod_pdbs_[p]) e.pdbs.push_back(c_.pdbs[d].key());
        if (pod.gpus > 0) {
          const long to = index.place(pod, nodes_[i].hardware_class);
          if (to >= 0) {
            e.placed_on = nodes_[static_cast<std::size_t>(to)].name;
            move_pod(p, static_cast<std::size_t>(to));
          } else {
            ++w.unplaced_gpu_pods;  // pending until there is room: no longer on any node
          }
        }
        w.evictions.push_back(std::move(e));
      }
      work_[i].pods.clear();
      work_[i].pdb_pods.clear();
      work_[i].evicted_gpu_pods = 0;
      work_[i].used_gpus = work_[i].staying_gpus;
    }
    std::sort(w.evictions.begin(), w.evictions.end(), [](auto& a, auto& b) { return a.pod < b.pod; });
    for (std::size_t i : members) {
      if (work_[i].capacity) index.insert(i, nodes_[i].gpus - work_[i].staying_gpus, true);
    }
  }

  void move_pod(std::size_t p, std::size_t to) {
    NodeWork& w = work_[to];
    w.pods.push_back(p);
    w.used_gpus += c_.pods[p].gpus;
    ++w.evicted_gpu_pods;
    for (std::size_t d : pod_pdbs_[p]) {
      auto e = std::find_if(w.pdb_pods.begin(), w.pdb_pods.end(), [&](auto& x) { return x.first == d; });
      if (e == w.pdb_pods.end())
        w.pdb_pods.emplace_back(d, 1);
      else
        ++e->second;
    }
  }

  void finish() {
    int deferred = 0, done = 0, failed = 0, excluded = 0, planned = 0;
    std::string first_wait;
    std::vector<std::string> unmet;
    for (const ClassCapacity& cc : plan_.classes) {
      if (cc.unmet)
        unmet.push_back(
            fmt::format("{} floor {} GPUs > {} schedulable", cc.hardware_class, cc.floor, cc.schedulable));
    }
    for (std::size_t i = 0; i < nodes_.size(); ++i) {
      NodeFate f;
      f.node = nodes_[i].name;
      f.hardware_class = nodes_[i].hardware_class;
      f.gpus = nodes_[i].gpus;
      f.rack = rack_[i];
      f.state = state_[i];
      f.reasons = reasons_[i];
      switch (f.state) {
        case NodeState::planned:
          f.wave = wave_of_.at(i);
          ++planned;
          break;
        case NodeState::done:
          ++done;
          f.reasons = {"qualified (verdict pass)"};
          break;
        case NodeState::failed:
          ++failed;
          f.reasons = {"failed qualification: stays out, no longer capacity"};
          break;
        case NodeState::excluded:
          ++excluded;
          f.reasons = {hold_[i].empty() ? "excluded by the policy (exclude_nodes)" : hold_[i]};
          break;
        case NodeState::deferred:
          ++deferred;
          if (first_wait.empty()) first_wait = fmt::format("{}: {}", f.node, f.reasons.front());
          break;
      }
      plan_.nodes.push_back(std::move(f));
    }
    std::string tail;
    if (done) tail += fmt::format(", {} done", done);
    if (failed) tail += fmt::format(", {} failed and kept out", failed);
    if (excluded) tail += fmt::format(", {} excluded", excluded);
    const std::string head =
        fmt::format("{} in {}", plural(planned, "node"), plural(plan_.waves.size(), "wave"));
    if (!unmet.empty()) {
      plan_.exit_code = 1;
      plan_.summary = fmt::format("gpuqual plan: FAIL the policy cannot be met ({}); {}{}",
                                  fmt::join(unmet, "; "), head, tail);
    } else if (deferred > 0) {
      plan_.exit_code = 2;
      plan_.summary = fmt::format("gpuqual plan: WAIT {} must wait ({}{}); {}{}", plural(deferred, "node"),
                                  first_wait, deferred > 1 ? ", ..." : "", head, tail);
    } else {
      plan_.exit_code = 0;
      plan_.summary = fmt::format("gpuqual plan: OK {}{}", head, tail);
    }
  }

  const Cluster& c_;
  const PlanPolicy& policy_;
  const NodeOutcomes& verdicts_;
  Plan plan_;
  std::vector<ClusterNode> nodes_;
  std::unordered_map<std::string, std::size_t> by_name_;
  std::unordered_map<std::string, std::vector<std::size_t>> pdbs_in_ns_;
  std::vector<std::vector<std::size_t>> pod_pdbs_;
  std::vector<NodeWork> work_;
  std::vector<std::string> rack_;                          // per node; "" in no rack
  std::map<std::string, std::vector<std::size_t>> racks_;  // rack → its nodes, by name
  std::vector<std::vector<std::string>> reasons_;
  std::vector<NodeState> state_;
  std::vector<std::string> hold_;  // operator_hold's reason, when the GPU Operator has the node
  std::map<std::string, int> class_ids_;
  std::vector<const ClassPolicy*> limits_;
  std::unordered_map<std::size_t, int> wave_of_;
};

}  // namespace

Plan make_plan(const Cluster& cluster, const PlanPolicy& policy, const NodeOutcomes& verdicts) {
  return Planner(cluster, policy, verdicts).run();
}

}  // namespace gpuqual
