// storage: can this node still use its storage? For each configured directory (node scratch, a
// PVC mount, a shared filesystem): mount type and options, free space, a seeded pattern written,
// fsynced, read back and verified byte by byte, fsync latency. The work is in
// probes/storage/storage_check.cpp; each path runs in a worker the check can kill, and what a killed
// check leaves (its test files) is removed by the after-abort clean-up registered here.
#include "probes/storage/storage_check.hpp"
#include "suites/check.hpp"
#include "suites/check_context.hpp"

namespace gpuqual {

namespace {

class StorageCheck : public Check {
 public:
  CheckResult run(const CheckContext& ctx) override {
    return probes::run_storage(probes::parse_storage_params(ctx.params, "storage params"),
                               ctx.stop_requested);
  }
};

}  // namespace

GPUQUAL_REGISTER_CHECK_WITH_CLEANUP(
    StorageCheck, "storage",
    "Write, fsync, read back and verify a seeded file on each configured path; "
    "mount, free space, fsync latency",
    probes::storage_after_abort);

}  // namespace gpuqual
