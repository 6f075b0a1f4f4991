#pragma once
namespace gpuqual {
// The whole CLI: parses argv, runs the chosen command, maps errors to exit codes.
int cli_main(int argc, char** argv);
}  // namespace gpuqual
