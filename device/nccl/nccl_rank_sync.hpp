#pragma once
// RankSync: how the processes of one all-reduce agree on host-side decisions.
//
// An all-reduce hangs unless every rank issues the same collectives in the same order. The
// measurement engine decides how many runs make a sample and when to stop from the times it
// measures and the wall clock; so, in a multi-process run, each of those inputs is first made
// identical on every rank (the maximum over ranks), and every rank then takes the same decision.
// A failure on one rank (a timeout, an NCCL error) is shared the same way, so all ranks stop
// together instead of waiting for a peer that left.
//
// One process driving all GPUs of a node is a group of one: LocalRankSync, every call the
// identity. The MPI implementation lives in runner/ (compiled only with GPUQUAL_WITH_MPI), so
// nothing below the runner depends on MPI.
#include <cstddef>
#include <span>
#include <string>
#include <vector>

namespace gpuqual {

class RankSync {
 public:
  virtual ~RankSync() = default;
  virtual int rank() const = 0;  // this process's index among the processes
  virtual int size() const = 0;  // number of processes
  // Every process calls these in the same order; each returns the same result everywhere.
  virtual void max_in_place(std::span<double> values) = 0;  // element-wise maximum
  virtual void broadcast(std::span<unsigned char> bytes, int root) = 0;
  // Process 0 gets every process's text in rank order; the others get an empty vector.
  virtual std::vector<std::string> gather_to_root(const std::string& text) = 0;

  double max(double value) {
    max_in_place(std::span<double>(&value, 1));
    return value;
  }
  bool any(bool flag) { return max(flag ? 1.0 : 0.0) > 0; }
};

class LocalRankSync : public RankSync {
 public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  void max_in_place(std::span<double>) override {}
  void broadcast(std::span<unsigned char>, int) override {}
  std::vector<std::string> gather_to_root(const std::string& text) override { return {text}; }
};

}  // namespace gpuqual
