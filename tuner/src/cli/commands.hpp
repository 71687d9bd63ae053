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

/// Exit codes.
inline constexpr int kExitOk = 0, kExitBadInput = 1, kExitTuningFailed = 2, kExitNoGpu = 3;
/// `tune --cached`, `header --database`: nothing usable stored (the same number as no GPU: in both
/// cases the caller falls back to a pinned header or the defaults).
inline constexpr int kExitNoResult = 3;
Command register_merge_command(CLI::App& app);       // command_merge.cpp
Command register_header_command(CLI::App& app);      // command_header.cpp
Command register_runner_command(CLI::App& app);      // runner_main.cpp (hidden)
Command register_measure_command(CLI::App& app);     // command_measure.cpp
Command register_check_command(CLI::App& app);       // command_check.cpp
Command register_report_command(CLI::App& app);      // command_report.cpp

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
