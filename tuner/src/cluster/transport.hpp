// How the ranks of a tuning spread over MPI (cluster.hpp) exchange messages: JSON objects, each
// with a "type", between numbered ranks (0 = the coordinator). The MPI implementation
// (mpi_transport.cpp, built when CMake finds MPI) is the only one a tuning uses; the tests also
// run the coordinator and the workers over an in-process one (tests/unit/cluster/).
#pragma once

#include <optional>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

namespace adaexplore {

/// A message received: the sending rank and the object.
struct Message {
  int source = 0;
  nlohmann::json body;
};

/// Not thread-safe: one thread at a time calls it (the coordinator's communication thread, the
/// worker's main loop).
class Transport {
 public:
  virtual ~Transport() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  /// This rank's index among the ranks of its node (0, 1, ...): a GPU of its own per rank.
  virtual int local_rank() const = 0;
  /// This rank's host name (MPI_Get_processor_name), for messages.
  virtual std::string host() const = 0;
  /// Queues `body` for `destination` and returns at once; it leaves when the destination takes
  /// it (progress()). A destination that died never takes it: nothing waits for it.
  virtual void send(int destination, const nlohmann::json& body) = 0;
  /// The next message that has arrived, from any rank, without waiting; advances the sends.
  virtual std::optional<Message> poll() = 0;
  /// Whether every send has left (for a clean shutdown; gives up on dead ranks after a while).
  virtual bool sends_done() = 0;
};

}  // namespace adaexplore
