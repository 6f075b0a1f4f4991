#pragma once
// The `stack` check's rules: the known ways a driver, toolkit, containerd or kernel upgrade breaks
// GPU containers, judged on what was read from the host's tree (core/rules/stack_tree.hpp) before
// any workload meets them. Each rule is a finding code of the shared findings table
// (baselines/health-findings.yaml, "stack" section) with its severity and action; docs/stack-check.md
// gives each rule, the field report that motivates it and the remedy.
#include <span>
#include <string>
#include <vector>

#include "core/record/record.hpp"
#include "core/rules/stack_tree.hpp"

namespace gpuqual {

struct StackRuleOptions {
  // The handler the RuntimeClass expects: containers/k8s/components/runtime-class sets
  // runtimeClassName `nvidia`, the name the GPU Operator gives its RuntimeClass.
  std::string handler = "nvidia";
};

// One finding code of the stack rules, as the findings table lists it.
struct StackFindingCode {
  const char* code;
  Severity severity;
  const char* action;
};

// Every code the rules can report, in rule order (the table test holds the YAML to it).
std::span<const StackFindingCode> stack_finding_codes();

// Every finding of the rules on `h`, in rule order (CDI, runtime, daemon-reload, Fabric Manager,
// kernel, reboot pending). Empty for a coherent stack.
std::vector<Finding> stack_findings(const HostStack& h, const StackRuleOptions& options);

struct StackJudgement {
  Status status = Status::pass;  // fail > error (something unread) > warn > pass
  std::string reason;            // "" for pass
  std::string reason_code;       // "no_gpu" for a skip: no NVIDIA GPU on the PCI bus
  std::vector<Finding> findings;
};

// The findings and the check's status: a failing rule fails; a path that could not be read is an
// error naming it (never a pass); a warning warns. With sysfs read and no NVIDIA GPU on the PCI
// bus there is no GPU container stack to judge: a skip with the not-applicable code `no_gpu`,
// which the verdict accepts only when no other source of the record sees a GPU either.
StackJudgement judge_stack(const HostStack& h, const StackRuleOptions& options);

// The record's summary of a judgement (node.stack.stack_check): status, codes, reboot pending and
// the CDI specs and runtime configuration as one line each, so `diff` shows a regenerated spec or
// a changed runtime config.
StackCheckSummary stack_check_summary(const HostStack& h, const StackJudgement& j);

}  // namespace gpuqual
