#pragma once
// Exit codes of every command that judges (docs/architecture.md, "Exit codes"). A Kubernetes Job, an Argo
// AnalysisTemplate or a CI stage gates on these; they are a contract.
namespace gpuqual {

enum ExitCode : int {
  kExitPass = 0,          // everything judged passed (warnings allowed unless --strict)
  kExitFail = 1,          // hardware or stack is wrong
  kExitInconclusive = 2,  // nothing failed, but something could not be measured or judged
  kExitUsage = 3,         // bad flags, unreadable or malformed input
};

}  // namespace gpuqual
