// Registers the progress listener (gtest_progress.hpp) before gtest_main runs the tests: with
// GPUQUAL_GTEST_PROGRESS_FILE set, every test's start and end reaches the file as it happens.
#include "gtest_progress.hpp"

namespace {
[[maybe_unused]] const bool progress_listener_added = gpuqual::gpu_test::add_progress_listener_from_env();
}  // namespace
