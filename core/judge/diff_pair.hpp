#pragma once
// Records that belong together (docs/diff.md): `diff BEFORE AFTER` is two runs of one node in
// order. The same run given twice (the same file, the same bytes, or the same run_id) and an
// "after" that started before the "before" ended (the arguments swapped, or overlapping runs)
// are input errors (exit 3), never a diff that passes because nothing changed.
#include <string>

#include "core/record/record.hpp"

namespace gpuqual {

// Throws InputError naming the after-record, with both records' times in the one-line message.
void require_before_after(const std::string& before_path, const RunRecord& before,
                          const std::string& after_path, const RunRecord& after);

}  // namespace gpuqual
