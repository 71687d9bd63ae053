// A worker rank of a tuning over MPI (cluster.hpp): it builds its own backend for each session
// rank 0 opens (a setup: which problem size), compiles the configurations it is given on its
// backend's compile workers, keeps their artifacts, measures each when told to on a free
// measuring worker (its GPUs), and answers with the outcomes; until rank 0 says stop, or is not
// heard from for timeout_s.
#pragma once

#include <functional>
#include <memory>
#include <ostream>

#include <nlohmann/json.hpp>

#include "cluster/transport.hpp"
#include "evaluate/backend.hpp"

namespace adaexplore {

/// Builds this rank's backend for a session's `setup` and fills `hello` with what rank 0 checks
/// (the tuning key's parts); throws std::runtime_error saying why it cannot (sent to rank 0).
using SessionFactory = std::function<std::unique_ptr<Backend>(const nlohmann::json& setup, nlohmann::json& hello)>;

/// serve_worker's results: rank 0 said stop; the same, having lost a rank (the process should
/// then end without MPI_Finalize, which would wait for the lost rank).
inline constexpr int kWorkerStopped = 0;
inline constexpr int kWorkerStoppedAfterLoss = 2;

/// Serves rank 0 until it says stop (kWorkerStopped or kWorkerStoppedAfterLoss, every task done)
/// or is silent for `timeout_s` (says so on `log` and ends the process with status 1, abandoning
/// what runs). `space`: the configurations' (every session's) space.
int serve_worker(Transport& transport, const Space& space, const SessionFactory& open, double timeout_s,
                 std::ostream& log);

}  // namespace adaexplore
