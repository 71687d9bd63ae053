// Subcommands of adaexplore-tuner; each lives in its own command_*.cpp and registers here.
#pragma once

#include <functional>
#include <string>

#include <CLI/CLI.hpp>

namespace adaexplore {

struct Command {
  CLI::App* app = nullptr;
  std::function<int()> run;
};

void register_commands(CLI::App& app);
int run_selected_command(CLI::App& app);

Command register_tune_command(CLI::App& app);        // command_tune.cpp
Command register_defaults_command(CLI::App& app);    // command_tune.cpp
Command register_device_command(CLI::App& app);      // command_device.cpp
Command register_strategies_command(CLI::App& app);  // command_device.cpp
Command register_explain_command(CLI::App& app);     // command_explain.cpp
Command register_replay_command(CLI::App& app);      // command_replay.cpp

/// Exit codes (kExitCodesHelp says them to the user; README.md "Exit codes").
inline constexpr int kExitOk = 0, kExitBadInput = 1, kExitTuningFailed = 2, kExitNoGpu = 3;
/// `tune --cached`, `header --database`: nothing usable stored (the same number as no GPU: in both
/// cases the caller falls back to a pinned header or the defaults).
inline constexpr int kExitNoResult = 3;
/// `check --config`: the configuration given is rejected (command_check.cpp).
inline constexpr int kExitConfigRejected = 4;
/// The environment, not the input: a file or folder could not be created, written, locked or
/// renamed (permissions, a full disk, a file where a folder must be: util/files.hpp
/// EnvironmentError, and std::filesystem's errors).
inline constexpr int kExitEnvironment = 5;
/// The exit code of a configuration's ending (configure/configure_kernel.hpp; command_tune.cpp):
/// header_written 0, bad_input 1, tuning_failed 2, no_device and no_result 3, environment 5.
enum class Ending;
int exit_code_of(Ending ending);
/// The exit codes in words, for --help.
inline constexpr const char* kExitCodesHelp =
    "Exit codes: 0 success; 1 bad input (the spec, a template, a results file, an option: the message names the "
    "file and the key, parameter or line); 2 the tuning found no valid configuration or the setup is broken; 3 no "
    "GPU for a cuda tuning, or nothing stored (tune --cached, header); 4 check --config: the configuration is "
    "rejected; 5 the environment: a file or folder could not be created, written or locked (permissions, a full "
    "disk, a file where a folder must be, such as a tuning database path that is a file).";
Command register_merge_command(CLI::App& app);       // command_merge.cpp
Command register_header_command(CLI::App& app);      // command_header.cpp
Command register_runner_command(CLI::App& app);      // runner_main.cpp (hidden)
Command register_measure_command(CLI::App& app);     // command_measure.cpp
Command register_check_command(CLI::App& app);       // command_check.cpp
Command register_report_command(CLI::App& app);      // command_report.cpp
Command register_configure_command(CLI::App& app);   // command_configure.cpp

/// `tune --mpi` (both words among the arguments) in a tuner built with MPI: initialises MPI now,
/// before the arguments are parsed, so that a rank whose arguments fail (a --spec missing on its
/// node) still joins the start check instead of exiting before MPI_Init, which hung the other ranks
/// in MPI_Init under --enable-recovery. Returns whether it did. command_tune.cpp.
bool start_mpi_if_asked(int argc, char** argv);
/// The arguments did not parse (`error`, CLI11's message; `code`, the exit code): with MPI started
/// by start_mpi_if_asked, this rank joins the start check with its error (rank 0 names it and every
/// rank ends), then MPI is finalised. Returns `code`.
int mpi_start_failed(const std::string& error, int code);

}  // namespace adaexplore
