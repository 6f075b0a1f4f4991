// How the all-reduce outcome becomes the check result (one node and many), what ranks send to
// rank 0 and how rank 0 reads it, and the deadline wait every NCCL step uses.
#include <gtest/gtest.h>

#include <chrono>
#include <stdexcept>

#include "device/nccl/nccl_wait.hpp"
#include "device/nccl_allreduce/nccl_allreduce_result.hpp"
#include "runner/multinode/nccl_rank_report.hpp"

namespace gpuqual {
namespace {

Metric node_metric(const std::string& name, double v) {
  Metric m;
  m.name = name;
  m.unit = "GB/s";
  m.median = m.min = m.max = v;
  m.samples = {v};
  return m;
}

AllreduceBenchOutcome healthy_outcome() {
  AllreduceBenchOutcome o;
  o.metrics.push_back(node_metric("nccl.allreduce.float.2GiB.busbw_gbps", 470));
  o.attributes["nccl.version"] = "2.28.9";
  for (int g = 0; g < 2; ++g) o.gpus.push_back(AllreduceGpuOutcome{g, Status::pass, {}, {}});
  return o;
}

Finding wrong_finding(int gpu, double count) {
  return Finding{.code = "nccl.wrong_result",
                 .severity = Severity::fail,
                 .gpu = gpu,
                 .detail = "float 2GiB out-of-place: 3 wrong elements",
                 .value = count};
}

TEST(NcclResult, HealthyRunPassesWithNodeMetricsAndEveryGpu) {
  const auto o = healthy_outcome();
  const CheckResult r = allreduce_check_result(o, o.gpus, {});
  EXPECT_EQ(r.name, "nccl_allreduce");
  EXPECT_EQ(r.status, Status::pass);
  EXPECT_EQ(r.reason, "");
  ASSERT_EQ(r.metrics.size(), 1u);
  EXPECT_FALSE(r.metrics[0].gpu.has_value());  // a collective figure belongs to the node
  ASSERT_EQ(r.per_gpu.size(), 2u);
  EXPECT_EQ(r.per_gpu[1].gpu, 1);
  EXPECT_EQ(r.per_gpu[1].status, Status::pass);
  EXPECT_EQ(r.attributes.at("nccl.version"), "2.28.9");
}

TEST(NcclResult, WrongElementsFailTheGpuWithTheCount) {
  auto o = healthy_outcome();
  o.gpus[1].status = Status::fail;
  o.gpus[1].notes.push_back("wrong all-reduce result: float 2GiB out-of-place: 3 wrong elements");
  o.gpus[1].findings.push_back(wrong_finding(1, 3));
  const CheckResult r = allreduce_check_result(o, o.gpus, {});
  EXPECT_EQ(r.status, Status::fail);
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(r.findings[0].code, "nccl.wrong_result");
  EXPECT_EQ(r.findings[0].value, 3);
  EXPECT_EQ(r.per_gpu[0].status, Status::pass);
  EXPECT_EQ(r.per_gpu[1].status, Status::fail);
  EXPECT_NE(r.reason.find("gpu 1: wrong all-reduce result"), std::string::npos) << r.reason;
}

TEST(NcclResult, AbortedRunIsErrorOnEveryGpuAndSaysWhereAndWhy) {
  auto o = healthy_outcome();
  o.aborted = true;
  o.aborted_at = "bf16 512MiB in-place: measurement";
  o.status = Status::error;
  const CheckResult r =
      allreduce_check_result(o, o.gpus, {"timed out after 60 s waiting for the all-reduce"});
  EXPECT_EQ(r.status, Status::error);
  EXPECT_EQ(r.reason.rfind("bf16 512MiB in-place: measurement: timed out after 60 s", 0), 0u) << r.reason;
  for (const auto& g : r.per_gpu) {
    EXPECT_EQ(g.status, Status::error);
    EXPECT_NE(g.reason.find("stopped at bf16 512MiB in-place"), std::string::npos);
  }
  EXPECT_EQ(r.metrics.size(), 1u);  // what was measured before the hang is kept
}

TEST(NcclResult, AFailOutranksAnErrorAndNoisyMeasurementsWarn) {
  auto o = healthy_outcome();
  o.status = Status::warn;
  o.notes.push_back("float 8KiB out-of-place: samples too noisy to gate on: CV 7 % > 5 %");
  CheckResult r = allreduce_check_result(o, o.gpus, {});
  EXPECT_EQ(r.status, Status::warn);
  EXPECT_NE(r.reason.find("too noisy"), std::string::npos);
  o.aborted = true;
  o.aborted_at = "NCCL finalize";
  o.gpus[0].status = Status::fail;
  o.gpus[0].notes.push_back("wrong");
  r = allreduce_check_result(o, o.gpus, {"x"});
  EXPECT_EQ(r.status, Status::fail);
}

TEST(NcclRanks, RangesAndGroupedMessages) {
  EXPECT_EQ(rank_ranges({}), "");
  EXPECT_EQ(rank_ranges({3}), "3");
  EXPECT_EQ(rank_ranges({7, 0, 1, 2, 3, 5, 8, 8}), "0-3,5,7-8");
  const auto grouped = group_rank_messages({{0, "a", "CUDA error 35"},
                                            {1, "a", "CUDA error 35"},
                                            {2, "b", "timed out"},
                                            {3, "b", "CUDA error 35"}});
  ASSERT_EQ(grouped.size(), 2u);
  EXPECT_EQ(grouped[0], "ranks 0-1,3 (a,b): CUDA error 35");
  EXPECT_EQ(grouped[1], "rank 2 (b): timed out");
}

TEST(NcclRanks, HostLayoutAndTopology) {
  const std::vector<std::string> two_by_two{"a", "a", "b", "b"};
  EXPECT_EQ(host_layout(two_by_two), "a:2,b:2");
  EXPECT_EQ(uniform_topology(two_by_two), "2x2");
  EXPECT_EQ(uniform_topology({"a", "a", "b"}), "");
  EXPECT_EQ(uniform_topology({}), "");
  EXPECT_EQ(uniform_topology(std::vector<std::string>(16, "one")), "1x16");
}

NcclRankReport report(int rank, const std::string& host) {
  NcclRankReport r;
  r.rank = rank;
  r.host = host;
  r.local_rank = rank % 2;
  r.gpu = rank % 2;
  r.gpu_info = GpuInfo{};
  r.gpu_info->index = rank;
  r.gpu_info->name = "NVIDIA H200";
  r.gpu_info->uuid = "GPU-0000000" + std::to_string(rank);
  r.gpu_info->memory_bytes = 150754820096ULL;
  r.outcome.record_gpu = rank;
  return r;
}

TEST(NcclRankReports, RoundTripThroughJson) {
  NcclRankReport r = report(3, "node-b");
  r.local_error = "timed out after 60 s waiting for \xff NCCL";  // not UTF-8: replaced, no throw
  r.outcome.status = Status::fail;
  r.outcome.notes = {"wrong all-reduce result"};
  r.outcome.findings.push_back(wrong_finding(3, 17));
  const NcclRankReport back = rank_report_from_json(rank_report_to_json(r), 3);
  EXPECT_EQ(back.host, "node-b");
  EXPECT_EQ(back.gpu, 1);
  ASSERT_TRUE(back.gpu_info.has_value());
  EXPECT_EQ(back.gpu_info->index, 3);
  EXPECT_EQ(back.gpu_info->uuid, "GPU-00000003");
  EXPECT_EQ(back.gpu_info->memory_bytes, 150754820096ULL);
  EXPECT_EQ(back.outcome.status, Status::fail);
  ASSERT_EQ(back.outcome.findings.size(), 1u);
  EXPECT_EQ(back.outcome.findings[0].value, 17);
  EXPECT_NE(back.local_error.find("timed out after 60 s"), std::string::npos);
  EXPECT_THROW((void)rank_report_from_json(rank_report_to_json(r), 4), std::runtime_error);  // wrong rank
  EXPECT_THROW((void)rank_report_from_json("{\"rank\": 1}", 1), std::runtime_error);
  EXPECT_THROW((void)rank_report_from_json("not json", 1), std::runtime_error);
}

TEST(NcclRankReports, OneRankIsSkip) {
  const CheckResult r = multinode_check_result({report(0, "a")}, nullptr, {{"nccl.bootstrap", "MPI"}});
  EXPECT_EQ(r.status, Status::skip);
  EXPECT_NE(r.reason.find("at least 2 ranks"), std::string::npos);
  EXPECT_EQ(r.attributes.at("nccl.bootstrap"), "MPI");
  EXPECT_EQ(r.attributes.at("nccl.rank.0"), "a gpu 0");
}

TEST(NcclRankReports, RanksThatCannotStartMakeItErrorOrSkipWithTheirReasons) {
  auto a = report(0, "a"), b = report(1, "a"), c = report(2, "b");
  b.ready = Status::error;
  b.ready_reason = "CUDA runtime cannot use a GPU: cudaGetDeviceCount returned 35";
  c.ready = Status::error;
  c.ready_reason = b.ready_reason;
  CheckResult r = multinode_check_result({a, b, c}, nullptr, {});
  EXPECT_EQ(r.status, Status::error);
  EXPECT_EQ(r.reason, "ranks 1-2 (a,b): CUDA runtime cannot use a GPU: cudaGetDeviceCount returned 35");
  EXPECT_TRUE(r.per_gpu.empty());
  b.ready = c.ready = Status::skip;
  b.ready_reason = c.ready_reason = "no GPU: the CUDA runtime reports 0 devices";
  r = multinode_check_result({a, b, c}, nullptr, {});
  EXPECT_EQ(r.status, Status::skip);
}

TEST(NcclRankReports, RankZeroCombinesEveryRanksGpusAndErrors) {
  auto agreed = healthy_outcome();
  agreed.aborted = true;
  agreed.aborted_at = "NCCL init";
  agreed.status = Status::error;
  auto a = report(0, "a"), b = report(1, "b"), bad = NcclRankReport{};
  b.local_error = "timed out after 60 s waiting for NCCL communicator init (1 of 3 ranks in this process)";
  bad.rank = 2;
  bad.host = "c";
  bad.local_error = "rank 2 sent a malformed report: x";
  const CheckResult r = multinode_check_result({a, b, bad}, &agreed, {});
  EXPECT_EQ(r.status, Status::error);
  ASSERT_EQ(r.per_gpu.size(), 2u);  // the malformed report has no GPU in the record
  EXPECT_EQ(r.per_gpu[1].gpu, 1);
  EXPECT_NE(r.reason.find("NCCL init: rank 1 (b): timed out after 60 s"), std::string::npos) << r.reason;
  EXPECT_NE(r.reason.find("rank 2 (c): rank 2 sent a malformed report"), std::string::npos) << r.reason;
  EXPECT_EQ(r.attributes.at("nccl.rank.2"), "c (no GPU)");
}

TEST(NcclWait, ReturnsWhenDoneAndTimesOutWithTheSeconds) {
  int polls = 0;
  poll_until([&] { return ++polls == 3; }, 5, "three polls");
  EXPECT_EQ(polls, 3);
  const auto t0 = std::chrono::steady_clock::now();
  try {
    poll_until([] { return false; }, 0.2, "a peer that never comes");
    ADD_FAILURE() << "no timeout";
  } catch (const NcclTimeout& e) {
    EXPECT_STREQ(e.what(), "timed out after 0.2 s waiting for a peer that never comes");
    EXPECT_EQ(e.seconds(), 0.2);
  }
  const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_GE(waited, 0.2);
  EXPECT_LT(waited, 2.0);
  // An asynchronous error seen while waiting ends the wait with that error at once.
  EXPECT_THROW(poll_until([]() -> bool { throw std::runtime_error("peer failed"); }, 60, "x"),
               std::runtime_error);
}

}  // namespace
}  // namespace gpuqual
