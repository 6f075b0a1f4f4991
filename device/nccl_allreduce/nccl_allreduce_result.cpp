#include "device/nccl_allreduce/nccl_allreduce_result.hpp"

#include <algorithm>
#include <map>
#include <set>

namespace gpuqual {

namespace {

std::string join(const std::vector<std::string>& parts, const std::string& sep) {
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : sep) + p;
  return out;
}

}  // namespace

CheckResult allreduce_check_result(const AllreduceBenchOutcome& agreed,
                                   const std::vector<AllreduceGpuOutcome>& gpus,
                                   const std::vector<std::string>& errors) {
  CheckResult r;
  r.name = kNcclAllreduceCheck;
  r.metrics = agreed.metrics;
  r.attributes = agreed.attributes;
  std::vector<std::string> node_notes;
  if (agreed.aborted) {
    node_notes.push_back(
        agreed.aborted_at + ": " +
        (errors.empty() ? std::string("a rank failed without saying why") : join(errors, "; ")));
  }
  for (const auto& n : agreed.notes) node_notes.push_back(n);
  Status status = agreed.status;
  if (agreed.aborted) status = worse_of(status, Status::error);

  std::vector<std::string> gpu_notes;
  for (const auto& g : gpus) {
    for (const auto& f : g.findings) r.findings.push_back(f);
    Status s = g.status;
    std::string reason = join(g.notes, "; ");
    if (agreed.aborted) {
      s = worse_of(s, Status::error);
      if (reason.empty()) reason = "all-reduce stopped at " + agreed.aborted_at;
    }
    r.per_gpu.push_back({g.record_gpu, s, reason, ""});
    status = worse_of(status, s);
    if (!g.notes.empty())
      gpu_notes.push_back("gpu " + std::to_string(g.record_gpu) + ": " + join(g.notes, "; "));
  }
  r.status = status;
  std::vector<std::string> all = node_notes;
  all.insert(all.end(), gpu_notes.begin(), gpu_notes.end());
  r.reason = status == Status::pass ? "" : join(all, "; ");
  return r;
}

std::string rank_ranges(std::vector<int> ranks) {
  std::sort(ranks.begin(), ranks.end());
  ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
  std::string out;
  for (std::size_t i = 0; i < ranks.size();) {
    std::size_t j = i;
    while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1) ++j;
    out += (out.empty() ? "" : ",") + std::to_string(ranks[i]);
    if (j > i) out += "-" + std::to_string(ranks[j]);
    i = j + 1;
  }
  return out;
}

std::vector<std::string> group_rank_messages(const std::vector<RankMessage>& messages) {
  // Keep the order in which messages first appear (rank order), so rank 0's is first.
  std::vector<std::string> order;
  std::map<std::string, std::pair<std::vector<int>, std::set<std::string>>> by_message;
  for (const auto& m : messages) {
    auto [it, fresh] = by_message.try_emplace(m.message);
    if (fresh) order.push_back(m.message);
    it->second.first.push_back(m.rank);
    it->second.second.insert(m.host);
  }
  std::vector<std::string> out;
  for (const auto& msg : order) {
    const auto& [ranks, hosts] = by_message[msg];
    std::string host_list;
    for (const auto& h : hosts) host_list += (host_list.empty() ? "" : ",") + h;
    out.push_back((ranks.size() == 1 ? "rank " : "ranks ") + rank_ranges(ranks) + " (" + host_list +
                  "): " + msg);
  }
  return out;
}

}  // namespace gpuqual
