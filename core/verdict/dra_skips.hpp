#pragma once
// Whether a record bears out the not-applicable `no_dra` of the `dra` check
// (core/record/skip_reason.cpp; docs/kubernetes.md, "DRA"): the check must say what it read, the
// resource.k8s.io API absent or present without NVIDIA's driver (its `resource_api` attribute),
// and that the node's GPUs do not reach pods through DRA (`gpu_path` neither `dra` nor `both`).
#include <optional>
#include <string>

#include "core/record/record.hpp"

namespace gpuqual {

// nullopt when the check's result bears no_dra out, else why not.
std::optional<std::string> no_dra_refusal(const CheckResult& check);

}  // namespace gpuqual
