// Staged profiling with Nsight Compute (ncu): at the end of a tuning, never during the search, the
// winner, the defaults and a few finalists are each profiled once, so that the report can show the
// counters that explain their difference (DRAM throughput, occupancy, stall reasons, ...).
//
// For each target: the configuration is prepared (compiled) again, the benchmark runs once under
// ncu (ProgramBackend::run_wrapped: in the runner mode a one-off runner under ncu, else the
// benchmark's process), one steady launch of the tuned kernel is profiled (the kernel names ptxas
// reported for the configuration, Prepared::resources), the report is written to
// <eval dir>/profile.ncu-rep and read back with `ncu --import ... --csv --page raw --print-units
// base` (<eval dir>/profile.csv). ncu's own output goes to <eval dir>/profile.log.
//
// The command lines (ncu_profile_command, ncu_import_command), kernels K1..Kn as ptxas names them
// (mangled):
//   ncu --target-processes all --clock-control none --metrics <profile_metrics(), comma-separated>
//       --kernel-name-base mangled --kernel-name K1 --launch-skip 1 --launch-count 1
//       --log-file <eval dir>/profile.log --export <eval dir>/profile.ncu-rep --force-overwrite
//       <program ...>
//   several kernels: --kernel-name regex:^(K1|K2)$ --launch-skip n --launch-count n (the benchmark's
//   checked run launches each once; the next n launches of them, its first timed run, are profiled);
//   none known (a backend without a ptxas report): no --kernel-name, every kernel counts.
//   ncu --import <eval dir>/profile.ncu-rep --csv --page raw --print-units base
// `--clock-control none`: the GPU runs at the clocks it ran the tuning at (ncu's default locks them
// to base clocks). `--print-units base`: one unit per metric whatever its size (bytes/s, ns), so
// that launches compare column by column; ncu then prints two decimals ("0.00" for a stall ratio
// below 0.005).
#pragma once

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "evaluate/program_backend.hpp"
#include "model/space.hpp"

namespace adaexplore {

/// The ncu to use: $ADAEXPLORE_NCU when set (a path, or a name looked up in PATH; std::runtime_error
/// when it names no executable file), else `ncu` on PATH, else bin/ncu of the CUDA toolkit of
/// `compiler` (the spec's compiler.path, a path or a name in PATH: next to it, then next to the
/// file it links to, e.g. /usr/local/cuda/bin/ncu for /usr/bin/nvcc -> /usr/local/cuda-13.0/bin/nvcc),
/// else nullopt.
std::optional<std::filesystem::path> find_ncu(const std::filesystem::path& compiler = {});

/// A metric the profile asks for, with what the report shows for it.
struct ProfileMetric {
  std::string name;   // ncu's metric name, e.g. "dram__throughput.avg.pct_of_peak_sustained_elapsed"
  std::string label;  // "DRAM throughput (% of peak)"
  std::string group;  // "memory", "compute", "occupancy", "time", "stall"
};

/// The metrics asked for, in this order (one --metrics list): DRAM throughput (% of peak, bytes/s),
/// SM throughput (% of peak), achieved occupancy (%), registers per thread, duration (ns), shared
/// memory bank conflicts (loads, stores), L2 hit rate (%), and the warp stall reasons
/// smsp__average_warps_issue_stalled_<reason>_per_issue_active.ratio (warps stalled per issued
/// instruction; a larger value, a larger share of the latency) for long_scoreboard,
/// short_scoreboard, barrier, mio_throttle, math_pipe_throttle, wait, not_selected, lg_throttle,
/// membar, dispatch_stall, no_instruction, branch_resolving, tex_throttle, drain, imc_miss,
/// sleeping, selected. A raw page of an H200 profile (2026-12-02) had every one; ncu refuses the whole
/// run when the GPU lacks one.
const std::vector<ProfileMetric>& profile_metrics();

/// The stall reason of a stall metric's name ("long_scoreboard" for
/// smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio); empty for others.
std::string stall_reason(const std::string& metric);

/// Parses the output of `ncu --import FILE --csv --page raw` (RFC 4180 fields, quoted or not;
/// first row the column names, second row their units, then one row per profiled kernel launch;
/// lines of ncu's own messages, starting with "==", are skipped) into one object per launch:
///   {"id": the ID column, "kernel": Kernel Name, "block": Block Size, "grid": Grid Size,
///    "device": Device, "cc": CC,
///    "metrics": {name: {"value": number | null ("n/a", empty) | text (not a number), "unit": "..."}}}
/// Every column after the first eleven (ID, Process ID, Process Name, Host Name, Kernel Name,
/// Context, Stream, Block Size, Grid Size, Device, CC) is a metric. Numbers may have thousands
/// separators ("2,293,550", "49,731,237,060.04"). Throws std::runtime_error naming the line (1-based)
/// when the CSV is malformed: no header, no "Kernel Name" column, no units row, a row whose field
/// count differs from the header's, a quote left open.
nlohmann::json parse_ncu_raw_csv(const std::string& csv);

/// The stall reasons of one launch (an element of parse_ncu_raw_csv's result) with a numeric
/// value, largest first (ties by name), at most `n`: [{"reason": "long_scoreboard", "value": 58.02}].
/// "selected" (the cycle a warp issues: about 1, not a stall) is left out.
nlohmann::json top_stalls(const nlohmann::json& launch, std::size_t n = 4);

/// One configuration to profile; role: "winner", "defaults", "finalist 2", ...
struct ProfileTarget {
  std::string role;
  Config config;
};

struct ProfileOptions {
  std::filesystem::path ncu;          // find_ncu(); empty: every target's error says ncu is missing
  double time_cap_s = 180;            // the whole stage: no target starts once this is spent (<= 0: no cap)
  double per_config_timeout_s = 120;  // each ncu run (profile, then import); 0: none
};

struct ProfileResult {
  std::string role;
  Config config;
  std::string label;  // Space::label(config)
  /// The launch profiled, as parse_ncu_raw_csv's element, its metrics those of profile_metrics()
  /// and ncu's launch__* ones (the raw page has hundreds more: device attributes and the like);
  /// with several kernels, the launch of the longest duration. null when not profiled.
  nlohmann::json launch;
  nlohmann::json launches;  // every launch profiled (filtered the same way), in ncu's order; [] when none
  std::vector<std::string> kernels;  // the kernel names profiled (--kernel-name), as ptxas names them
  /// Empty on success; else why, e.g. "not profiled: ncu not found (...)", "ncu failed (exit code 1):
  /// ==ERROR== ...; log: <eval dir>/profile.log", "not profiled: the time cap 180 s was spent".
  std::string error;
  double wall_s = 0;          // this target's time: compile, profile, import
  std::string ncu_version;    // "Version 2025.3.1.0 (build ...)" from ncu --version
  std::string command;        // the ncu command line that profiled (prefix + the program it ran)
  std::filesystem::path report;  // <eval dir>/profile.ncu-rep (empty when not profiled)
  std::filesystem::path log;     // <eval dir>/profile.log
};

/// The profiling command: ncu's options up to (not including) the program it runs (see the top).
std::vector<std::string> ncu_profile_command(const std::filesystem::path& ncu, const std::vector<std::string>& kernels,
                                             const std::filesystem::path& report, const std::filesystem::path& log);
/// The command that prints a report's raw page as CSV (see the top).
std::vector<std::string> ncu_import_command(const std::filesystem::path& ncu, const std::filesystem::path& report);

/// Profiles each target in order with `backend` (see the top). A configuration already profiled
/// in this call (the defaults that won, say) is not profiled again: its result is repeated with
/// the target's role. No target starts once options.time_cap_s is spent (its error says so); a
/// target started runs to its end (at most per_config_timeout_s per ncu run). Never throws for a
/// target's failure (compile error, ncu missing or failing, no launch profiled, a CSV that does
/// not parse): that is its result's error.
std::vector<ProfileResult> profile_targets(ProgramBackend& backend, const std::vector<ProfileTarget>& targets,
                                           const ProfileOptions& options);

/// {"role", "config" (an object as records write it), "label", "launch", "launches" (only with more
/// than one), "stalls" (top_stalls of the launch, at most 6; [] when none), "kernels", "error",
/// "wall_s", "ncu_version", "command", "report", "log"}.
nlohmann::json to_json(const ProfileResult& r, const Space& space);

}  // namespace adaexplore
