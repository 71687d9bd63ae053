// adaexplore-tuner: the command-line tuner. Subcommands: tune, defaults, device, strategies,
// replay, explain, merge, header.
// Exit codes: cli/commands.hpp (kExitCodesHelp, shown by --help).
#include <CLI/CLI.hpp>

#include <iostream>

#include "cli/commands.hpp"

int main(int argc, char** argv) {
  CLI::App app{
      "adaexplore-tuner: failure-driven, diversity-preserving autotuner for CUDA (and C++) kernels.\n"
      "Reads a tuning spec (JSON), evaluates configurations, writes a results file (JSON Lines)\n"
      "and a header of constexpr winning parameters.\n" + std::string(adaexplore::kExitCodesHelp)};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string(ADAEXPLORE_VERSION));
  adaexplore::register_commands(app);
  try {
    adaexplore::start_mpi_if_asked(argc, argv);  // tune --mpi: MPI_Init before anything can fail
  } catch (const std::exception& e) {
    std::cerr << "adaexplore-tuner tune: error: --mpi: " << e.what() << "\n";
    return adaexplore::kExitBadInput;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // CLI11 prints the message (or the help, or the version); its own exit codes (105 for a value
    // out of range, 106 for a missing option, ...) become the documented 1 for bad usage.
    return adaexplore::mpi_start_failed(e.what(), app.exit(e) == 0 ? adaexplore::kExitOk : adaexplore::kExitBadInput);
  }
  return adaexplore::run_selected_command(app);
}
