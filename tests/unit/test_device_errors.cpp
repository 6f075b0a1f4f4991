// The device layer's typed errors and owners, exercised against the real CUDA 13 runtime,
// cuBLAS, NCCL and the NVML loader. Each test holds on a machine without a driver (here) and on
// a GPU node: where the outcome depends on the driver, both branches assert.
#include <gtest/gtest.h>

#include <string>

#include "device/cublas/cublas_error.hpp"
#include "device/cublas/cublas_handle.hpp"
#include "device/cuda/cuda_error.hpp"
#include "device/cuda/device_buffer.hpp"
#include "device/cuda/stream.hpp"
#include "device/nccl/nccl_error.hpp"
#include "device/nvml/nvml_error.hpp"
#include "device/nvml/nvml_library.hpp"

using namespace gpuqual;

namespace {
bool has_cuda_device() {
  int n = 0;
  return cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
}
}  // namespace

TEST(DeviceErrors, CudaCheckCarriesCallFileLineAndRuntimeMessage) {
  void* p = nullptr;
  // Fails on every machine: no driver (35) here, out of memory (2) on a GPU node.
  try {
    CUDA_CHECK(cudaMalloc(&p, ~std::size_t{0}));
    FAIL() << "cudaMalloc of 2^64-1 bytes succeeded";
  } catch (const CudaError& e) {
    const std::string what = e.what();
    EXPECT_EQ(e.api(), "CUDA");
    EXPECT_NE(e.status(), cudaSuccess);
    EXPECT_NE(what.find("cudaMalloc(&p, ~std::size_t{0})"), std::string::npos) << what;
    EXPECT_NE(what.find("tests/unit/test_device_errors.cpp:"), std::string::npos) << what;
    EXPECT_NE(what.find(cudaGetErrorName(e.status())), std::string::npos) << what;
    if (!has_cuda_device()) {
      EXPECT_EQ(e.status(), cudaErrorInsufficientDriver);
      EXPECT_NE(what.find("CUDA driver version is insufficient"), std::string::npos) << what;
    }
  }
}

TEST(DeviceErrors, CudaCheckPassesSuccess) { EXPECT_NO_THROW(CUDA_CHECK(cudaSuccess)); }

TEST(DeviceErrors, CublasCheckUsesCublasStatusName) {
  try {
    CUBLAS_CHECK(CUBLAS_STATUS_INVALID_VALUE);
    FAIL();
  } catch (const CublasError& e) {
    EXPECT_EQ(e.status(), CUBLAS_STATUS_INVALID_VALUE);
    EXPECT_NE(std::string(e.what()).find("CUBLAS_STATUS_INVALID_VALUE"), std::string::npos) << e.what();
  }
}

TEST(DeviceErrors, CublasHandleFollowsTheDriver) {
  if (has_cuda_device()) {
    CublasHandle h;
    EXPECT_NE(h.get(), nullptr);
    CublasHandle moved(std::move(h));
    EXPECT_NE(moved.get(), nullptr);
    return;
  }
  try {
    CublasHandle h;
    FAIL() << "cublasCreate succeeded without a driver";
  } catch (const CublasError& e) {
    EXPECT_EQ(e.status(), CUBLAS_STATUS_NOT_INITIALIZED) << e.what();
    EXPECT_NE(std::string(e.what()).find("cublasCreate"), std::string::npos) << e.what();
  }
}

TEST(DeviceErrors, NcclCheckNamesTheNcclResult) {
  int version = 0;
  EXPECT_NO_THROW(NCCL_CHECK(ncclGetVersion(&version)));
  EXPECT_GE(version, 22800);  // the toolkit's NCCL 2.28
  try {
    NCCL_CHECK(ncclInvalidUsage);
    FAIL();
  } catch (const NcclError& e) {
    EXPECT_EQ(e.status(), ncclInvalidUsage);
    EXPECT_NE(std::string(e.what()).find(ncclGetErrorString(ncclInvalidUsage)), std::string::npos)
        << e.what();
  }
}

TEST(DeviceErrors, NvmlCheckNamesTheStatusWithoutALoadedLibrary) {
  try {
    NVML_CHECK(NVML_ERROR_NOT_SUPPORTED);
    FAIL();
  } catch (const NvmlError& e) {
    EXPECT_EQ(e.status(), NVML_ERROR_NOT_SUPPORTED);
    EXPECT_NE(std::string(e.what()).find("NVML_ERROR_NOT_SUPPORTED"), std::string::npos) << e.what();
  }
}

TEST(DeviceOwners, EmptyBufferAllocatesNothingAndMoves) {
  DeviceBuffer a;
  EXPECT_FALSE(a);
  DeviceBuffer zero(0);
  EXPECT_EQ(zero.bytes(), 0u);
  DeviceBuffer b(std::move(zero));
  EXPECT_FALSE(b);
}

TEST(DeviceOwners, AllocationFollowsTheDriver) {
  if (has_cuda_device()) {
    DeviceBuffer buf(1 << 20);
    EXPECT_TRUE(buf);
    DeviceBuffer moved = std::move(buf);
    EXPECT_EQ(moved.bytes(), 1u << 20);
    EXPECT_FALSE(buf);  // NOLINT: moved-from state is part of the contract
    Stream s;
    EXPECT_NE(s.get(), nullptr);
    return;
  }
  EXPECT_THROW(DeviceBuffer(1 << 20), CudaError);
  EXPECT_THROW(Stream(), CudaError);
}

TEST(NvmlLoader, MissingLibraryIsAReasonNotACrash) {
  auto s = NvmlSession::open("libnvidia-ml-does-not-exist.so.1");
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.reason().find("libnvidia-ml-does-not-exist.so.1 not loadable"), std::string::npos)
      << s.reason();
}

TEST(NvmlLoader, LibraryWithoutNvmlSymbolsIsRefusedByName) {
  // libm is loadable everywhere and exports none of NVML's symbols.
  auto s = NvmlSession::open("libm.so.6");
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.reason().find("nvmlInit_v2"), std::string::npos) << s.reason();
  EXPECT_EQ(s.api().nvmlInit_v2, nullptr);
}

TEST(NvmlLoader, DefaultLibraryMatchesTheNode) {
  auto s = NvmlSession::open();
  if (!s.ok()) {
    EXPECT_FALSE(s.reason().empty());
    EXPECT_NE(s.reason().find("libnvidia-ml.so.1"), std::string::npos) << s.reason();
  } else {
    unsigned n = 0;
    EXPECT_EQ(s.api().nvmlDeviceGetCount_v2(&n), NVML_SUCCESS);
  }
}
