#pragma once
// cuBLAS and cuBLASLt are dlopen'ed on first use (device/cublas_lazy.cpp explains why): gpuqual
// never links them, so commands that do not touch a GPU start in milliseconds.
#include <string>

namespace gpuqual {

// Why cuBLAS cannot be used, or "" when it loads (loading it now if no cuBLAS call has yet).
std::string cublas_load_problem();

}  // namespace gpuqual
