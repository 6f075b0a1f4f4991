#include "core/record/status.hpp"

#include "core/base/exit_code.hpp"

namespace gpuqual {

std::string_view to_string(Status s) {
  switch (s) {
    case Status::pass:
      return "pass";
    case Status::warn:
      return "warn";
    case Status::fail:
      return "fail";
    case Status::skip:
      return "skip";
    case Status::error:
      return "error";
  }
  return "error";
}

std::optional<Status> parse_status(std::string_view text) {
  for (Status s : {Status::pass, Status::warn, Status::fail, Status::skip, Status::error}) {
    if (to_string(s) == text) return s;
  }
  return std::nullopt;
}

int severity_rank(Status s) {
  switch (s) {
    case Status::pass:
      return 0;
    case Status::warn:
      return 1;
    case Status::skip:
      return 2;
    case Status::error:
      return 3;
    case Status::fail:
      return 4;
  }
  return 4;
}

Status worse_of(Status a, Status b) { return severity_rank(a) >= severity_rank(b) ? a : b; }

int exit_code_of(Status s) {
  switch (s) {
    case Status::pass:
    case Status::warn:
      return kExitPass;
    case Status::fail:
      return kExitFail;
    case Status::skip:
    case Status::error:
      break;
  }
  return kExitInconclusive;
}

}  // namespace gpuqual
