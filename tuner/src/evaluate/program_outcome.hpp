// Outcomes of the programs a backend runs: the compiler and the benchmark. The benchmark's
// result record (its format is in templates/adaexplore/harness_common.hpp) decides when there is
// one; otherwise the way the program ended does. Every failure keeps its evidence: the first
// diagnostic line first (the tuner compares failures by it), then the command line, the exit
// code or signal and the program's output, truncated in the middle.
#pragma once

#include <filesystem>
#include <string>

#include "model/outcome.hpp"
#include "util/process.hpp"

namespace adaexplore {

/// A failure of `run`: message = `summary`, the command line, how it ended, its output.
Outcome process_failure(Status status, const std::string& summary, const ProcessResult& run);

/// The compiler's first error line ("file:3:1: error: ..."), or its first non-empty line.
std::string first_error_line(const std::string& compiler_output);

/// "SIGSEGV (Segmentation fault)".
std::string signal_name(int signal);

/// Classifies a finished benchmark run that was told to write its record to `record_file`:
///   time-out (after `time_limit_s`) -> timeout, extra.timeout_stage "run"; a valid record -> its status, objective =
///   time_ms.median, timing, extra = figures + verification + warmup_runs + kernels (the driver's
///   view, harness.cuh check_launch) + suspicious (the harness's sanity gates that fired: an
///   outcome with any keeps its status but never wins, see loop/crown.hpp) + clocks (NVML), stage_ms +=
///   the record's stages_ms (setup, verify, warmup, measure; wall-clock ms; both optional, older
///   harnesses write neither); a resource_limit whose record has a kernel with
///   "launchable": false says in its message that the static rules missed it (the static check
///   ran before the benchmark and let it through) and sets extra.static_check_missed; no record
///   -> crash (signal named, or exit code and stderr); a record that breaks the protocol -> crash
///   saying so.
Outcome benchmark_outcome(const ProcessResult& run, const std::filesystem::path& record_file,
                          double time_limit_s);

}  // namespace adaexplore
