#pragma once
// Burn-in on the current device: GEMMs back to back for the duration, each product's output
// fingerprinted and compared bit for bit with the first (ResultComparator), GEMM-only time from
// CUDA events per window of about a second giving a TFLOP/s series (bounded: DecimatedSeries),
// and memtest passes interleaved every `memtest_every_s`.
#include <cstdint>
#include <functional>

#include "core/rules/burnin_logic.hpp"
#include "core/rules/telemetry_summary.hpp"
#include "device/gemm/gemm_precision.hpp"
#include "device/gemm/gemm_verify.hpp"
#include "device/measure/measure_params.hpp"
#include "device/memtest/memtest_runner.hpp"

namespace gpuqual {

struct BurninConfig {
  GemmPrecision precision = GemmPrecision::bf16;
  std::uint64_t size = 8192;
  double duration_s = 60;
  double window_s = 1.0;                // GEMMs per TFLOP/s figure: about this long
  double warmup_s = kDenseGemmWarmupS;  // wall time of untimed GEMMs first, out of the series (<= 0: none)
  double memtest_every_s = 600;         // <= 0: no memtest
  MemtestConfig memtest;                // passes forced to 1 per interleaved run
  std::uint64_t seed = 1;
  int verify_samples = 256;  // elements of the first product checked against the host
};

struct BurninGpuResult {
  DecimatedSeries tflops{1024};  // one value per window
  // The first product against the host reference; its fingerprint is the comparison's reference
  // only when it passed (a wrong first product is fail, not the standard the rest are held to).
  GemmCheck first_product;
  ResultComparator compare;
  std::uint64_t gemms = 0;
  double gemm_seconds = 0;  // GEMM-only GPU time
  double elapsed_s = 0;     // wall time of the load
  bool stopped = false;     // should_stop() ended it before the duration
  unsigned memtest_runs = 0;
  MemtestRunResult memtest;  // summed over runs: bytes (last run), passes, errors per pattern
};

// Per window: elapsed seconds, that window's TFLOP/s (progress lines).
using BurninWindowHook = std::function<void(double elapsed_s, double tflops)>;
// Test hook: after GEMM `iteration` ran and before its output is fingerprinted.
using BurninCorruptor = std::function<void(std::uint64_t iteration, void* output, std::uint64_t bytes)>;

// The warm-up runs by wall time, not by a product count from the calibration: the calibrated
// product time can be off by the first launch's costs, and a count derived from it would warm
// for a fraction of the time. Untimed products run in batches of about kBurninWarmupBatchS,
// each waited for, until `warmup_s` of wall time has passed. The next batch's size when
// `elapsed_s` of warm-up have passed and one product takes `one_product_s`: 0 when the warm-up
// is over (or off: warmup_s <= 0), else at least 1 and at most 10000.
inline constexpr double kBurninWarmupBatchS = 0.1;
std::uint64_t burnin_warmup_batch(double elapsed_s, double warmup_s, double one_product_s);

// Throws CudaError/CublasError (the result so far is lost with it; the caller reports error).
BurninGpuResult run_burnin(const BurninConfig& config, const std::function<bool()>& should_stop,
                           const BurninWindowHook& on_window = {}, const BurninCorruptor& corrupt = {});

}  // namespace gpuqual
