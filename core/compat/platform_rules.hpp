#pragma once
// The cited rule tables `gpuqual matrix check` judges a target stack against, besides the
// CUDA <-> driver table (core/compat/cuda_compat.hpp): driver branches and the GPU architectures each
// supports (baselines/driver-branches.yaml), and GPU Operator releases with their Kubernetes
// ranges, default drivers and support state (baselines/gpu-operator.yaml). Each file states its
// sources and the date they were read; loading is strict like the baselines (InputError with
// file: line N: $.path, exit 3). Where sources disagree the tables keep every statement.
#include <optional>
#include <string>
#include <vector>

#include "core/base/dotted_version.hpp"

namespace gpuqual {

inline constexpr const char* kDriverBranchesFile = "driver-branches.yaml";
inline constexpr const char* kGpuOperatorFile = "gpu-operator.yaml";

enum class BranchKind { long_term, production, new_feature, unconfirmed };
std::string_view to_string(BranchKind k);

// One source's word on a branch's end of life.
struct EolStatement {
  std::string date;     // "2026-06" or "2026-06-01"; empty with `listed` or `none`
  bool listed = false;  // the source lists the branch as end of life, undated
  bool none = false;    // the source says the branch has no end-of-life date
  std::string source;
  // Whether this statement says the branch is end of life on `as_of` (YYYY-MM-DD). A month
  // counts from its first day.
  bool reached(const std::string& as_of) const;
};

struct DriverBranch {
  int branch = 0;
  BranchKind kind = BranchKind::unconfirmed;
  bool kind_confirmed = true;
  std::string first_release;
  std::string native_cuda;
  std::vector<EolStatement> end_of_life;
  std::string note;
};

// A later minimum a source states for one product of an architecture (HGX B200 needs
// 570.133.20 although Blackwell runs from 570.26).
struct ProductMinimum {
  std::string name;                // "B200", as the table writes it
  std::vector<std::string> words;  // its lower-cased words: matched as whole words of the GPU's name
  DottedVersion min_driver;
  std::string min_driver_text;
  std::string source;
  // "NVIDIA B200" is B200; "NVIDIA GB200" is not.
  bool matches(const std::string& gpu_product) const;
};

struct Architecture {
  std::string name;
  std::vector<std::string> compute_capabilities;
  std::optional<DottedVersion> min_driver;
  std::string min_driver_text;
  std::optional<int> last_branch;
  std::string source;
  std::vector<ProductMinimum> products;
  // The product minimum for `gpu_product`, or null (the architecture's own applies).
  const ProductMinimum* product(const std::string& gpu_product) const;
};

struct DriverBranchTable {
  std::vector<DriverBranch> branches;
  std::vector<Architecture> architectures;
  std::string read;  // the date the sources were read
  std::string source;
  std::string origin;
  const DriverBranch* find(int branch) const;
  const Architecture* for_compute_capability(const std::string& cc) const;
};

struct KubernetesRange {
  DottedVersion min, max;  // minor versions, both included
  std::string text;        // "1.30-1.34"
  std::string source;
};

struct OperatorRelease {
  std::string version;  // "25.10.0"
  std::string date;
  std::string default_driver;
  std::vector<KubernetesRange> kubernetes;
  std::string note;
};

struct GpuOperatorTable {
  std::vector<OperatorRelease> releases;
  std::string as_of, lifecycle_source, lifecycle_note;
  std::string supported;   // major "26.7"
  std::string deprecated;  // major "26.3"
  std::string read, source, origin;
  const OperatorRelease* find(const std::string& version) const;  // "v25.10.0" or "25.10.0"
  // "supported", "deprecated", "end-of-life", or "unknown" (a major newer than the table knows).
  std::string support_state(const std::string& version) const;
};

DriverBranchTable parse_driver_branches_yaml(const std::string& text, const std::string& origin);
DriverBranchTable load_driver_branches(const std::string& path);
GpuOperatorTable parse_gpu_operator_yaml(const std::string& text, const std::string& origin);
GpuOperatorTable load_gpu_operator_table(const std::string& path);

// Whether `d` is YYYY-MM-DD and that day exists (2025-13-01, 2026-02-30 and "tomorrow" do not).
bool is_calendar_date(const std::string& d);

// "25.10.0" from "v25.10.0" (Operator tags and kubelet versions carry a v); others as given.
std::string without_v(const std::string& version);

// "570" from "570.133.20", "570." or "R570"; nullopt when it does not start with a number.
std::optional<int> driver_branch_of(const std::string& version);

}  // namespace gpuqual
