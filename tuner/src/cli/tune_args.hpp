// `tune`'s arguments as parsed (command_tune.cpp) and the adapters over configure_kernel that
// command_tune.cpp and command_tune_mpi.cpp share.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "configure/configure_kernel.hpp"

namespace adaexplore {

/// `tune`'s command line (`adaexplore-tuner tune --help` says each option).
struct TuneArgs {
  std::string spec, header, results, database, strategy, arch;
  std::vector<std::string> generated;  // --generated: tuned headers' folders, outputs left out of the key
  std::size_t budget = 0, jobs = 0, warm_start = 4, confirm_rounds = 3, in_flight = 0;
  double confirm_margin = 0.03;
  std::uint64_t seed = 0;
  bool seed_given = false;
  double time_limit_s = -1;
  std::vector<int> devices = {0};
  std::string size_transfer = "model";  // --size-transfer model|winners (Request::size_transfer)
  bool fresh = false, retune = false, cached = false, quiet = false;
  std::string report, chartjs;  // --report PATH (a spec with sizes: PATH.<size>.html), --chartjs
  bool no_report = false;
  bool profile = false;  // --profile: ncu on the winner, the defaults and up to 3 finalists
  double profile_time_limit_s = 180;
  // --mpi: one tuning over the ranks of an MPI job (cluster/cluster.hpp, docs/cluster.md).
  bool mpi = false;
  double mpi_timeout_s = 60;
  bool devices_given = false;      // --device given (else, with --mpi, the rank's local rank: run_tune_mpi)
  Coordinator* cluster = nullptr;  // rank 0 of an --mpi tuning: its workers
};

/// The spec of `tune`: the file's, with the command line's overrides; its template checked.
Spec tuning_spec(const TuneArgs& a);
/// What `tune` asks of configure_kernel.
Request tuning_request(const TuneArgs& a);
/// `tune` in this process (rank 0 of --mpi too): configure_kernel on stdout/stderr, its ending as
/// the exit code.
int run_tune_here(const TuneArgs& a);
/// `tune --mpi` (command_tune_mpi.cpp): the start check, then rank 0's tuning or a worker rank.
int run_tune_mpi(TuneArgs a);

}  // namespace adaexplore
