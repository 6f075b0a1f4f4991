#include "runner/cli.hpp"

int main(int argc, char** argv) { return gpuqual::cli_main(argc, argv); }
