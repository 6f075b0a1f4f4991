// `gpuqual __check --task FILE --result FILE [--progress-fd N]`: the child side of one check,
// started by `gpuqual run` re-executing its own binary. Hidden from --help: not for people.
#include <memory>

#include "runner/cli/command.hpp"
#include "runner/run/check_child.hpp"

namespace gpuqual {

void add_check_child_command(CLI::App& app, CommandAction& selected) {
  struct Args {
    std::string task, result;
    int progress_fd = -1;
  };
  auto args = std::make_shared<Args>();
  CLI::App* cmd = app.add_subcommand("__check", "Run one check in this process (used by gpuqual run)");
  cmd->group("");  // an empty group hides the subcommand from --help
  cmd->add_option("--task", args->task)->required();
  cmd->add_option("--result", args->result)->required();
  cmd->add_option("--progress-fd", args->progress_fd);
  cmd->callback([args, &selected] {
    selected = [args] { return run_check_child(args->task, args->result, args->progress_fd); };
  });
}

}  // namespace gpuqual
