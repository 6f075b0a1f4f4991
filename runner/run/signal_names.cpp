#include "runner/run/signal_names.hpp"

#include <fmt/format.h>

#include <cstring>

namespace gpuqual {

std::string signal_name(int sig) {
  if (const char* abbrev = sigabbrev_np(sig)) return fmt::format("SIG{}", abbrev);
  return fmt::format("signal {}", sig);
}

std::string describe_signal(int sig) {
  const char* text = sigdescr_np(sig);
  if (!text) return signal_name(sig);
  return fmt::format("{} ({})", signal_name(sig), text);
}

}  // namespace gpuqual
