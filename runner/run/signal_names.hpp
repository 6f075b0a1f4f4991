#pragma once
// Signal numbers as people read them in a record: "SIGSEGV (Segmentation fault)".
#include <string>

namespace gpuqual {

std::string signal_name(int sig);      // "SIGSEGV", or "signal 77" when unnamed
std::string describe_signal(int sig);  // "SIGSEGV (Segmentation fault)"

}  // namespace gpuqual
