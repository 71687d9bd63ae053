#include "cluster/mpi_transport.hpp"

#include <cstdlib>
#include <deque>
#include <stdexcept>
#include <vector>

#ifdef ADAEXPLORE_HAVE_MPI
#include <mpi.h>
#endif

namespace adaexplore {

#ifdef ADAEXPLORE_HAVE_MPI
namespace {

constexpr int kTag = 7;

class MpiTransport final : public Transport {
 public:
  MpiTransport() {
    int provided = 0;
    if (MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided) != MPI_SUCCESS)
      throw std::runtime_error("MPI_Init_thread failed");
    if (provided < MPI_THREAD_SERIALIZED) {
      MPI_Finalize();
      throw std::runtime_error("this MPI library offers no MPI_THREAD_SERIALIZED (the tuner calls MPI from one "
                               "thread at a time, not always the main one)");
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
    MPI_Comm node;
    if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &node) == MPI_SUCCESS) {
      MPI_Comm_rank(node, &local_rank_);
      MPI_Comm_free(&node);
    }
    char name[MPI_MAX_PROCESSOR_NAME];
    int length = 0;
    MPI_Get_processor_name(name, &length);
    host_.assign(name, static_cast<std::size_t>(length));
  }
  // Called only when no rank was lost (cluster.hpp Coordinator::stop): every send has left.
  ~MpiTransport() override { MPI_Finalize(); }

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  int local_rank() const override { return local_rank_; }
  std::string host() const override { return host_; }

  void send(int destination, const nlohmann::json& body) override {
    Sending s;
    s.bytes = nlohmann::json::to_msgpack(body);
    if (MPI_Isend(s.bytes.data(), static_cast<int>(s.bytes.size()), MPI_BYTE, destination, kTag, MPI_COMM_WORLD,
                  &s.request) != MPI_SUCCESS)
      return;  // that peer is gone: its silence tells the coordinator (cluster.hpp)
    sending_.push_back(std::move(s));
    progress();
  }

  std::optional<Message> poll() override {
    progress();
    int flag = 0;
    MPI_Status status;
    if (MPI_Iprobe(MPI_ANY_SOURCE, kTag, MPI_COMM_WORLD, &flag, &status) != MPI_SUCCESS || !flag) return std::nullopt;
    int count = 0;
    MPI_Get_count(&status, MPI_BYTE, &count);
    std::vector<std::uint8_t> bytes(static_cast<std::size_t>(count));
    if (MPI_Recv(bytes.data(), count, MPI_BYTE, status.MPI_SOURCE, kTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE) !=
        MPI_SUCCESS)
      return std::nullopt;
    Message m;
    m.source = status.MPI_SOURCE;
    m.body = nlohmann::json::from_msgpack(bytes);
    return m;
  }

  bool sends_done() override {
    progress();
    return sending_.empty();
  }

 private:
  struct Sending {
    std::vector<std::uint8_t> bytes;
    MPI_Request request = MPI_REQUEST_NULL;
  };
  // Frees the sends that completed (MPI_Isend's buffer lives until then). A send whose test
  // fails (its peer is gone) may still be active: its buffer is kept, never reused.
  void progress() {
    for (auto it = sending_.begin(); it != sending_.end();) {
      int done = 0;
      if (MPI_Test(&it->request, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS) {
        failed_.push_back(std::move(it->bytes));
        it = sending_.erase(it);
      } else if (done) {
        it = sending_.erase(it);
      } else {
        ++it;
      }
    }
  }

  int rank_ = 0, size_ = 1, local_rank_ = 0;
  std::string host_;
  std::deque<Sending> sending_;
  std::vector<std::vector<std::uint8_t>> failed_;
};

}  // namespace

bool mpi_available() { return true; }

std::vector<std::string> mpi_allgather(const std::string& mine) {
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int length = static_cast<int>(mine.size());
  std::vector<int> lengths(static_cast<std::size_t>(size)), offsets(static_cast<std::size_t>(size));
  if (MPI_Allgather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, MPI_COMM_WORLD) != MPI_SUCCESS)
    throw std::runtime_error("MPI_Allgather failed at the start check");
  int total = 0;
  for (int r = 0; r < size; ++r) offsets[static_cast<std::size_t>(r)] = total, total += lengths[static_cast<std::size_t>(r)];
  std::string all(static_cast<std::size_t>(total), '\0');
  if (MPI_Allgatherv(mine.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(), MPI_CHAR,
                     MPI_COMM_WORLD) != MPI_SUCCESS)
    throw std::runtime_error("MPI_Allgatherv failed at the start check");
  std::vector<std::string> out;
  for (int r = 0; r < size; ++r)
    out.push_back(all.substr(static_cast<std::size_t>(offsets[static_cast<std::size_t>(r)]),
                             static_cast<std::size_t>(lengths[static_cast<std::size_t>(r)])));
  return out;
}

std::unique_ptr<Transport> make_mpi_transport() {
  return std::make_unique<MpiTransport>();
}


#else

bool mpi_available() { return false; }

std::vector<std::string> mpi_allgather(const std::string&) {
  (void)make_mpi_transport();  // throws, saying how to build the tuner with MPI
  return {};
}

std::unique_ptr<Transport> make_mpi_transport() {
  throw std::runtime_error(
      "--mpi: this adaexplore-tuner was built without MPI (CMake's find_package(MPI) found none): install an MPI "
      "implementation with its headers (Debian/Ubuntu: apt-get install openmpi-bin libopenmpi-dev) and build the "
      "tuner again");
}


#endif

}  // namespace adaexplore
