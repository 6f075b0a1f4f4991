#include "runner/multinode/nccl_rank_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "core/record/hardware_class.hpp"
#include "core/record/record_json.hpp"
#include "device/nccl_allreduce/nccl_allreduce_result.hpp"

namespace gpuqual {

namespace {

using nlohmann::json;

json gpu_to_json(const GpuInfo& g) {
  return json{{"name", g.name},
              {"uuid", g.uuid},
              {"pci_bus_id", g.pci_bus_id},
              {"compute_capability", g.compute_capability},
              {"sm_count", g.sm_count},
              {"memory_bytes", g.memory_bytes}};
}

GpuInfo gpu_from_json(const json& j, int index) {
  GpuInfo g;
  g.index = index;
  g.name = j.at("name").get<std::string>();
  g.uuid = j.at("uuid").get<std::string>();
  g.pci_bus_id = j.at("pci_bus_id").get<std::string>();
  g.compute_capability = j.at("compute_capability").get<std::string>();
  g.sm_count = j.at("sm_count").get<int>();
  g.memory_bytes = j.at("memory_bytes").get<std::uint64_t>();
  return g;
}

std::vector<std::pair<std::string, int>> hosts_in_order(const std::vector<std::string>& host_of_rank) {
  std::vector<std::pair<std::string, int>> hosts;
  for (const auto& h : host_of_rank) {
    auto it = std::find_if(hosts.begin(), hosts.end(), [&](const auto& p) { return p.first == h; });
    if (it == hosts.end()) {
      hosts.emplace_back(h, 1);
    } else {
      ++it->second;
    }
  }
  return hosts;
}

}  // namespace

std::string rank_report_to_json(const NcclRankReport& r) {
  json findings = json::array();
  for (const auto& f : r.outcome.findings) findings.push_back(to_json(f));
  json j{{"rank", r.rank},
         {"host", r.host},
         {"local_rank", r.local_rank},
         {"gpu", r.gpu},
         {"gpu_info", r.gpu_info ? gpu_to_json(*r.gpu_info) : json(nullptr)},
         {"ready", std::string(to_string(r.ready))},
         {"ready_reason", r.ready_reason},
         {"local_error", r.local_error},
         {"status", std::string(to_string(r.outcome.status))},
         {"notes", r.outcome.notes},
         {"findings", findings}};
  // Error texts may carry bytes that are not UTF-8 (a driver message): replaced, never a throw
  // that would leave this rank out of the gather the others wait in.
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

NcclRankReport rank_report_from_json(const std::string& text, int rank) {
  try {
    const json j = json::parse(text);
    NcclRankReport r;
    r.rank = j.at("rank").get<int>();
    if (r.rank != rank) throw std::runtime_error(fmt::format("it says it is rank {}", r.rank));
    r.host = j.at("host").get<std::string>();
    r.local_rank = j.at("local_rank").get<int>();
    r.gpu = j.at("gpu").get<int>();
    if (!j.at("gpu_info").is_null()) r.gpu_info = gpu_from_json(j.at("gpu_info"), rank);
    auto status = [&](const char* key) {
      const auto s = parse_status(j.at(key).get<std::string>());
      if (!s) throw std::runtime_error(fmt::format("{} is not a status", key));
      return *s;
    };
    r.ready = status("ready");
    r.ready_reason = j.at("ready_reason").get<std::string>();
    r.local_error = j.at("local_error").get<std::string>();
    r.outcome.record_gpu = rank;
    r.outcome.status = status("status");
    r.outcome.notes = j.at("notes").get<std::vector<std::string>>();
    const json& findings = j.at("findings");
    for (std::size_t i = 0; i < findings.size(); ++i) {
      r.outcome.findings.push_back(
          finding_from_json(findings[i], "rank report", fmt::format("$.findings[{}]", i)));
    }
    return r;
  } catch (const std::exception& e) {
    throw std::runtime_error(fmt::format("rank {} sent a malformed report: {}", rank, e.what()));
  }
}

CheckResult multinode_check_result(const std::vector<NcclRankReport>& reports,
                                   const AllreduceBenchOutcome* agreed,
                                   const std::map<std::string, std::string>& attributes) {
  CheckResult result;
  if (reports.size() < 2) {
    result = CheckResult{};
    result.name = kNcclAllreduceCheck;
    result.status = Status::skip;
    result.reason = fmt::format(
        "an all-reduce needs at least 2 ranks; mpirun started {} (one rank per GPU: mpirun -np N)",
        reports.size());
  } else if (!agreed) {
    // Some rank could not take part: nothing ran. Error when any could not use CUDA, skip when
    // the only problem is ranks without a GPU.
    std::vector<RankMessage> why;
    Status status = Status::skip;
    for (const auto& r : reports) {
      if (r.ready == Status::pass) continue;
      status = worse_of(status, r.ready);
      why.push_back({r.rank, r.host, r.ready_reason});
    }
    result.name = kNcclAllreduceCheck;
    result.status = status;
    std::string reason;
    for (const auto& w : group_rank_messages(why)) reason += (reason.empty() ? "" : "; ") + w;
    result.reason = reason.empty() ? "the ranks did not agree to start (no rank said why)" : reason;
  } else {
    std::vector<AllreduceGpuOutcome> gpus;
    std::vector<RankMessage> errors;
    for (const auto& r : reports) {
      // Only ranks with a GPU in the record get a per-GPU entry (a malformed report has none).
      if (r.gpu_info) {
        gpus.push_back(r.outcome);
        gpus.back().record_gpu = r.rank;
      }
      if (!r.local_error.empty()) errors.push_back({r.rank, r.host, r.local_error});
    }
    result = allreduce_check_result(*agreed, gpus, group_rank_messages(errors));
  }
  for (const auto& [k, v] : attributes) result.attributes[k] = v;
  for (const auto& r : reports) {
    result.attributes[fmt::format("nccl.rank.{}", r.rank)] =
        r.gpu >= 0 ? fmt::format("{} gpu {}", r.host, r.gpu) : fmt::format("{} (no GPU)", r.host);
  }
  return result;
}

std::vector<GpuInfo> multinode_record_gpus(const std::vector<NcclRankReport>& reports) {
  std::vector<GpuInfo> gpus;
  const std::string home = reports.empty() ? std::string() : reports.front().host;
  for (const auto& r : reports) {
    if (!r.gpu_info) continue;
    GpuInfo g = *r.gpu_info;
    if (r.host != home && !g.pci_bus_id.empty()) g.pci_bus_id = r.host + "/" + g.pci_bus_id;
    if (g.uuid.empty()) g.uuid = unread_gpu_uuid(g);
    gpus.push_back(std::move(g));
  }
  return gpus;
}

std::string host_layout(const std::vector<std::string>& host_of_rank) {
  std::string out;
  for (const auto& [h, n] : hosts_in_order(host_of_rank))
    out += fmt::format("{}{}:{}", out.empty() ? "" : ",", h, n);
  return out;
}

std::string uniform_topology(const std::vector<std::string>& host_of_rank) {
  const auto hosts = hosts_in_order(host_of_rank);
  if (hosts.empty()) return "";
  for (const auto& [h, n] : hosts) {
    if (n != hosts.front().second) return "";
  }
  return fmt::format("{}x{}", hosts.size(), hosts.front().second);
}

}  // namespace gpuqual
