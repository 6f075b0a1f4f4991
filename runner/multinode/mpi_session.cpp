// Compiled only with GPUQUAL_WITH_MPI (runner/CMakeLists.txt). See mpi_session.hpp.
#include "runner/multinode/mpi_session.hpp"

// The C API only: OpenMPI's deprecated C++ bindings do not compile cleanly with -Wextra.
#ifndef OMPI_SKIP_MPICXX
#define OMPI_SKIP_MPICXX 1
#endif
#include <mpi.h>

#include <stdexcept>
#include <vector>

namespace gpuqual {

namespace {

class MpiWorld : public RankSync {
 public:
  MpiWorld() {
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
  }
  int rank() const override { return rank_; }
  int size() const override { return size_; }

  void max_in_place(std::span<double> values) override {
    MPI_Allreduce(MPI_IN_PLACE, values.data(), static_cast<int>(values.size()), MPI_DOUBLE, MPI_MAX,
                  MPI_COMM_WORLD);
  }

  void broadcast(std::span<unsigned char> bytes, int root) override {
    MPI_Bcast(bytes.data(), static_cast<int>(bytes.size()), MPI_UNSIGNED_CHAR, root, MPI_COMM_WORLD);
  }

  std::vector<std::string> gather_to_root(const std::string& text) override {
    int length = static_cast<int>(text.size());
    std::vector<int> lengths(rank_ == 0 ? size_ : 0);
    MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
    std::vector<int> offsets(lengths.size(), 0);
    int total = 0;
    for (std::size_t r = 0; r < lengths.size(); ++r) {
      offsets[r] = total;
      total += lengths[r];
    }
    std::string all(static_cast<std::size_t>(total), '\0');
    MPI_Gatherv(text.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(), MPI_CHAR, 0,
                MPI_COMM_WORLD);
    std::vector<std::string> out;
    for (std::size_t r = 0; r < lengths.size(); ++r) out.push_back(all.substr(offsets[r], lengths[r]));
    return out;
  }

 private:
  int rank_ = 0, size_ = 1;
};

class OpenMpiSession : public MpiSession {
 public:
  OpenMpiSession() {
    int provided = 0;
    if (MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS) {
      throw std::runtime_error("MPI_Init_thread failed");
    }
    world_ = std::make_unique<MpiWorld>();
    // The ranks that share a node (shared memory): which GPU of the node this rank drives.
    MPI_Comm node = MPI_COMM_NULL;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, world_->rank(), MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &local_rank_);
    MPI_Comm_size(node, &local_size_);
    MPI_Comm_free(&node);
  }
  ~OpenMpiSession() override { finalize(); }

  RankSync& world() override { return *world_; }
  int local_rank() const override { return local_rank_; }
  int local_size() const override { return local_size_; }

  std::string library_version() const override {
    char text[MPI_MAX_LIBRARY_VERSION_STRING] = {};
    int length = 0;
    MPI_Get_library_version(text, &length);
    std::string v(text, static_cast<std::size_t>(length));
    const auto cut = v.find_first_of("\r\n,");
    return cut == std::string::npos ? v : v.substr(0, cut);
  }

  void finalize() override {
    int done = 0;
    MPI_Finalized(&done);
    if (!done) MPI_Finalize();
  }

 private:
  std::unique_ptr<MpiWorld> world_;
  int local_rank_ = 0, local_size_ = 1;
};

}  // namespace

std::unique_ptr<MpiSession> start_mpi_session() { return std::make_unique<OpenMpiSession>(); }

}  // namespace gpuqual
