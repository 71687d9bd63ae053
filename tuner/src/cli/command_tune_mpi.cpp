// `tune --mpi`: one tuning over the ranks of an MPI job (docs/cluster.md). Rank 0 runs
// configure_kernel with a Coordinator of the other ranks (Request::cluster); the others serve
// (cluster/worker.hpp). The start check every rank joins, before anything can fail.
#include <cstdlib>
#include <iostream>
#include <memory>

#include "cli/commands.hpp"
#include "cli/tune_args.hpp"
#include "cluster/cluster.hpp"
#include "cluster/mpi_transport.hpp"
#include "cluster/worker.hpp"
#include "configure/tuning.hpp"
#include "util/text.hpp"

namespace adaexplore {
namespace {

// A worker rank of an --mpi tuning (cluster/worker.hpp): the same spec as rank 0, a backend of
// its own for each session (its GPUs, its own work folder <work_dir>/mpi-rank-<N>).
int run_worker(const TuneArgs& a, Transport& transport) {
  const Spec spec = tuning_spec(a);
  const Request request = tuning_request(a);
  const SessionFactory open = [&](const nlohmann::json& setup, nlohmann::json& hello) {
    Spec s = spec;
    const nlohmann::json size = setup.value("size", nlohmann::json());
    if (!size.is_null()) {
      std::size_t i = 0;
      while (i < spec.sizes.sizes.size() && spec.sizes.to_json(spec.sizes.sizes[i]) != size) ++i;
      if (i == spec.sizes.sizes.size())
        throw std::runtime_error("problem size " + size.dump() + " is not among " + spec.file.string() + "'s sizes");
      s = size_spec(spec, i);
    }
    std::vector<DeviceInfo> devices;
    if (const std::string missing = find_tuning_devices(request, s, devices); !missing.empty())
      throw std::runtime_error(missing + " (on " + transport.host() + ")");
    const Spec keyed = s;  // the key as rank 0 computes it (cluster_hello: its default header path)
    s.work_dir = s.work_dir / ("mpi-rank-" + std::to_string(transport.rank()));
    std::unique_ptr<Backend> backend = local_backend(s, devices);
    hello = cluster_hello(request, keyed, *backend, devices);
    return backend;
  };
  if (serve_worker(transport, spec.space, open, a.mpi_timeout_s, std::cerr) == kWorkerStoppedAfterLoss) {
    std::cerr << std::flush;
    std::_Exit(0);  // rank 0 lost a rank: MPI_Finalize would wait for it
  }
  return kExitOk;
}

// tune --mpi's transport, made before the arguments are parsed (start_mpi_if_asked) so that a rank
// whose arguments fail still joins the start check.
std::unique_ptr<Transport>& early_transport() {
  static std::unique_ptr<Transport> transport;
  return transport;
}

// The start check of an --mpi tuning, a collective every rank joins once MPI is initialised and
// before anything else can fail or any message flows: each rank's error ("" when its arguments,
// spec, template and benchmark are fine) gathered on every rank. Any error: rank 0 says which
// ranks failed and why, nothing is evaluated, and every rank returns kExitBadInput (MPI_Finalize
// then ends the job cleanly: every rank is alive). Else kExitOk. Before 2026-12-05 a rank failing
// before MPI_Init (a --spec missing on its node) hung the job under --enable-recovery, and one
// failing after it was dropped as "not heard from" after --mpi-timeout while the tuning went on.
int mpi_start_check(Transport& transport, const std::string& error) {
  const std::vector<std::string> all = mpi_allgather(transport.host() + '\n' + error);
  std::string refused;
  for (std::size_t r = 0; r < all.size(); ++r) {
    const std::size_t cut = all[r].find('\n');
    const std::string why = all[r].substr(cut + 1);
    if (!why.empty()) refused += "\n  MPI rank " + std::to_string(r) + " (" + all[r].substr(0, cut) + "): " + why;
  }
  if (refused.empty()) return kExitOk;
  if (transport.rank() == 0)
    std::cerr << "adaexplore-tuner tune: error: --mpi: refused at the start, nothing evaluated: these ranks cannot "
                 "tune:" << refused
              << "\n  Every rank needs the same arguments and its own readable copy of the spec, the template and "
                 "the benchmark (docs/cluster.md)."
              << std::endl;
  return kExitBadInput;
}

}  // namespace

// --mpi: the start check, the device of each rank without --device (its local rank: one rank per
// GPU), then the tuning on rank 0 and the workers on the others.
int run_tune_mpi(TuneArgs a) {
  const std::unique_ptr<Transport> transport =
      early_transport() ? std::move(early_transport()) : make_mpi_transport();
  std::string error;
  try {
    (void)tuning_spec(a);
  } catch (const std::exception& e) {
    error = e.what();
  }
  if (const int code = mpi_start_check(*transport, error)) return code;
  if (!a.devices_given) a.devices = {transport->local_rank()};
  if (transport->rank() != 0) return run_worker(a, *transport);
  Coordinator coordinator(*transport, a.mpi_timeout_s, &std::cerr);
  a.cluster = &coordinator;
  std::cout << "[adaexplore] MPI: " << counted(transport->size(), "rank")
            << "; rank 0 (" << transport->host() << ") runs the search and records, every rank compiles and measures"
            << std::endl;
  int code = kExitOk;
  try {
    code = run_tune_here(a);
  } catch (const std::exception& e) {
    if (!coordinator.stop()) throw;  // MPI_Finalize as the program ends
    // A rank was lost: MPI_Finalize would wait for it (the workers end without it too).
    std::cerr << "adaexplore-tuner tune: error: " << e.what() << std::endl;
    std::cout << std::flush;
    std::_Exit(kExitBadInput);
  }
  if (coordinator.stop()) {
    const std::vector<int> lost = coordinator.lost_ranks();
    // MPI_Finalize would wait for the lost ranks (OpenMPI's waits for every process): everything
    // is written, so this process ends without it, as the workers were told to.
    std::cerr << "[adaexplore] MPI: " << lost.size() << (lost.size() == 1 ? " rank was" : " ranks were")
              << " lost during the tuning; the others end without MPI_Finalize. A lost rank that still runs "
                 "(hung) stops by itself once it runs again and no longer hears rank 0; until then mpirun waits for it"
              << std::endl;
    std::cout << std::flush;
    std::_Exit(code);
  }
  return code;
}

bool start_mpi_if_asked(int argc, char** argv) {
  bool tune = false, mpi = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    tune = tune || arg == "tune";
    mpi = mpi || arg == "--mpi";
  }
  if (!tune || !mpi || !mpi_available()) return false;
  early_transport() = make_mpi_transport();
  return true;
}

int mpi_start_failed(const std::string& error, int code) {
  if (!early_transport()) return code;
  const std::unique_ptr<Transport> transport = std::move(early_transport());
  if (code == kExitOk) return code;  // --help, --version: every rank prints it and ends
  mpi_start_check(*transport, error);
  return code;
}

}  // namespace adaexplore
