#pragma once
// The threaded loop of the commands that read thousands of records (`gate`, `matrix build`):
// each thread has its own StreamingRecordReader and claims the next index until none is left.
#include <cstddef>
#include <functional>

#include "core/record/record_reader.hpp"

namespace gpuqual {

// Calls `work(i, reader)` once for every i in [0, n), on `jobs` threads (0: one per hardware
// thread; never more than n). An exception thrown by `work` stops the threads from claiming
// more, and once they have stopped the exception of the smallest failing index is rethrown.
// Indices are claimed in order, so when record i fails every record before it was already
// claimed and finishes: the exception reported is the same on every run and thread count.
// `work` must catch what it means to survive (one unreadable record) itself.
void for_each_record(std::size_t n, unsigned jobs,
                     const std::function<void(std::size_t, StreamingRecordReader&)>& work);

}  // namespace gpuqual
