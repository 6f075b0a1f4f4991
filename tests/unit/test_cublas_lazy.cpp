// cuBLAS is dlopen'ed on first use (device/cublas/cublas_lazy.cpp). The library loads on a machine
// without a GPU (only creating a handle needs one), so the forwarding is tested here for real.
#include <cublasLt.h>
#include <cublas_v2.h>
#include <gtest/gtest.h>

#include <string>

#include "device/cublas/cublas_lazy.hpp"

namespace gpuqual {
namespace {

TEST(CublasLazy, LoadsTheToolkitLibraryAndForwardsCalls) {
  EXPECT_EQ(cublas_load_problem(), "");
  int major = -1, minor = -1;
  ASSERT_EQ(cublasGetProperty(MAJOR_VERSION, &major), CUBLAS_STATUS_SUCCESS);
  ASSERT_EQ(cublasGetProperty(MINOR_VERSION, &minor), CUBLAS_STATUS_SUCCESS);
  // The library found is the one whose headers gpuqual was built with.
  EXPECT_EQ(major, CUBLAS_VER_MAJOR);
  EXPECT_EQ(minor, CUBLAS_VER_MINOR);
}

TEST(CublasLazy, StatusTextsComeFromTheLibrary) {
  EXPECT_STREQ(cublasGetStatusName(CUBLAS_STATUS_NOT_SUPPORTED), "CUBLAS_STATUS_NOT_SUPPORTED");
  EXPECT_NE(std::string(cublasGetStatusString(CUBLAS_STATUS_ALLOC_FAILED)), "");
}

TEST(CublasLazy, CublasLtCallsReachTheLibrary) {
  // A matmul descriptor is host-only state: creating one needs no GPU.
  cublasLtMatmulDesc_t desc = nullptr;
  ASSERT_EQ(cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F), CUBLAS_STATUS_SUCCESS);
  ASSERT_NE(desc, nullptr);
  EXPECT_EQ(cublasLtMatmulDescDestroy(desc), CUBLAS_STATUS_SUCCESS);
}

}  // namespace
}  // namespace gpuqual
