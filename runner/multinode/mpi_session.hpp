#pragma once
// OpenMPI as the bootstrap of the multi-node all-reduce (`gpuqual nccl` under mpirun): MPI
// starts the processes, tells each its rank and its rank on its node (which GPU it drives),
// broadcasts the NCCL unique id, keeps the ranks' decisions in step (RankSync) and gathers the
// results to rank 0. NCCL itself moves the data.
//
// Compiled only with GPUQUAL_WITH_MPI (runner/multinode/mpi_session.cpp); nothing here includes mpi.h,
// and nothing outside runner/ knows MPI.
#include <memory>
#include <string>

#include "device/nccl/nccl_rank_sync.hpp"

namespace gpuqual {

class MpiSession {
 public:
  virtual ~MpiSession() = default;
  virtual RankSync& world() = 0;
  virtual int local_rank() const = 0;  // rank among the processes on this node
  virtual int local_size() const = 0;
  virtual std::string library_version() const = 0;  // "Open MPI v4.1.4, ..." (first line)
  // MPI_Finalize; the destructor does it when this was not called. Idempotent.
  virtual void finalize() = 0;
};

// MPI_Init (threads: single). Throws std::runtime_error when MPI cannot start.
std::unique_ptr<MpiSession> start_mpi_session();

}  // namespace gpuqual
