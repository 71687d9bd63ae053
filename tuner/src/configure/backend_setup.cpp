// The backend of a tuning (tuning.hpp): the GPUs asked for, this process's backend, or one over
// the ranks of an MPI job checked to share one key.
#include <map>
#include <stdexcept>
#include <tuple>

#include "cluster/cluster.hpp"
#include "configure/tuning.hpp"
#include "evaluate/backends.hpp"
#include "model/backend_kind.hpp"
#include "store/key.hpp"

namespace adaexplore {
namespace {

// Two ranks measuring on one GPU would disturb each other's timings: refused, naming them.
void check_cluster_gpus(const nlohmann::json& mine, const std::string& host0, const std::vector<WorkerHello>& workers) {
  std::vector<std::tuple<int, std::string, std::vector<std::string>>> ranks;
  ranks.emplace_back(0, host0, mine.value("gpus", std::vector<std::string>{}));
  for (const auto& w : workers) ranks.emplace_back(w.rank, w.host, w.body.value("gpus", std::vector<std::string>{}));
  const std::vector<std::string> shared = shared_gpus(ranks);
  if (shared.empty()) return;
  std::string what;
  for (const auto& line : shared) what += "\n  " + line;
  throw std::runtime_error("--mpi: ranks would measure on the same GPU, and disturb each other's timings:" + what +
                           "\n  Give each rank its own GPUs: one rank per GPU without --device (each takes the GPU "
                           "of its local rank), Slurm's --gpus-per-task=1 with --device 0, or one rank per node with "
                           "--device 0,1,... (docs/cluster.md). Nothing was evaluated.");
}

// The ranks whose hellos differ from rank 0's key: refused with an error naming them, their
// hosts and devices, and what to do.
void check_cluster_keys(const nlohmann::json& mine, const std::string& host0, const std::vector<WorkerHello>& workers) {
  std::string differ;
  for (const auto& w : workers) {
    const nlohmann::json theirs = w.body.value("key_parts", nlohmann::json::object());
    if (theirs == mine["key_parts"]) continue;
    const nlohmann::json their_device = w.body.value("device", nlohmann::json::object());
    std::string what;
    if (device_key_part(their_device) != device_key_part(mine["device"])) {
      std::vector<std::string> fields;
      const nlohmann::json ours = device_key_part(mine["device"]), others = device_key_part(their_device);
      for (auto it = ours.begin(); it != ours.end(); ++it) {
        const auto other = others.find(it.key());
        if (other == others.end() || *other != it.value()) fields.push_back(it.key());
      }
      for (auto it = others.begin(); it != others.end(); ++it)
        if (ours.find(it.key()) == ours.end()) fields.push_back(it.key());
      what = "device " + their_device.dump() + " (differs in";
      for (const auto& f : fields) what += " " + f;
      what += ")";
    } else {
      const std::string content = differing_content(theirs, mine["key_parts"]);
      what = "the same device, but other " + (content.empty() ? std::string("key parts (headers, size or backend)") : content + " files");
    }
    differ += "\n  MPI rank " + std::to_string(w.rank) + " (" + w.host + "): " + what;
  }
  if (differ.empty()) return;
  throw std::runtime_error(
      "--mpi: these ranks would measure for another tuning key than rank 0 (" + host0 + ", device " +
      mine["device"].dump() + "):" + differ +
      "\n  Only GPUs of one model (a host kernel: one CPU model and compiler version), with the same spec, "
      "template, benchmark, headers and toolchain (the spec's compiler.path, by its --version), are combined in "
      "one tuning. Run one job per GPU model (Slurm: --constraint or a partition of one model) into one --database "
      "folder; `adaexplore-tuner header --database` then writes a header that selects each model's winner "
      "(docs/cluster.md). Nothing was evaluated.");
}

// A CPU kernel over MPI: ranks on one host measure on the same cores, beside each other's work.
void warn_shared_cpus(const Tuning& t, const Spec& spec, const std::vector<WorkerHello>& workers) {
  Coordinator& cluster = *t.request.cluster;
  std::map<std::string, std::vector<int>> by_host = {{cluster.host(), {0}}};
  for (const auto& w : workers) by_host[w.host].push_back(w.rank);
  for (const auto& [host, ranks] : by_host) {
    if (ranks.size() < 2) continue;
    std::string list;
    for (int r : ranks) list += (list.empty() ? "" : ", ") + std::to_string(r);
    t.err() << "[adaexplore] warning: --mpi: ranks " << list << " share the CPU of " << host << ": a "
            << spec.backend << " kernel's measurements there run beside the other ranks' compiles and "
            << "measurements and are slowed by them; for figures to trust, one rank per node (docs/cluster.md)"
            << std::endl;
  }
}

}  // namespace

std::string find_tuning_devices(const Request& request, const Spec& spec, std::vector<DeviceInfo>& devices) {
  if (!backend_kind(spec.backend).needs_gpu) return "";
  for (int index : request.devices) {
    const DeviceInfo device = query_device(index);
    if (!device.present) return "no CUDA GPU " + std::to_string(index) + " to tune on: " + device.reason;
    for (const auto& other : devices)
      if (other.index == device.index)
        throw std::runtime_error("--device " + std::to_string(index) + " is given twice; give each GPU once");
    devices.push_back(device);
  }
  return "";
}

std::unique_ptr<Backend> local_backend(const Spec& spec, const std::vector<DeviceInfo>& devices) {
  return make_backend(spec, devices);
}

// What a rank of an --mpi tuning says of its backend for a setup of `spec` (the key's parts, as
// key_place computes them, but with the headers of the size's default header path on every rank).
nlohmann::json cluster_hello(const Request& request, const Spec& spec, Backend& backend, const std::vector<DeviceInfo>& devices) {
  const auto header_path = header_path_of(spec, request);
  const nlohmann::json includes = included_headers(request, backend, header_path);
  std::vector<std::string> gpus;
  for (const auto& d : devices) gpus.push_back(d.uuid);
  return {{"key_parts", key_parts(spec, backend.name(), backend.device(), includes)},
          {"device", backend.device()},
          {"gpus", gpus}};
}

// The backend of a tuning of `spec`: this process's, or (rank 0 of --mpi) one over the ranks of
// the job, each with a backend of its own for this spec (the worker's run_worker), checked to
// share this key.
std::unique_ptr<Backend> tuning_backend(const Tuning& t, const Spec& spec) {
  const Request& a = t.request;
  const std::vector<DeviceInfo>& devices = t.devices;
  std::unique_ptr<Backend> local = local_backend(spec, devices);
  if (!a.cluster) return local;
  nlohmann::json setup = {{"size", spec.size ? spec.sizes.to_json(*spec.size) : nlohmann::json()}};
  std::vector<WorkerHello> workers = open_session(*a.cluster, setup);
  const nlohmann::json mine = cluster_hello(a, spec, *local, devices);
  check_cluster_keys(mine, a.cluster->host(), workers);
  check_cluster_gpus(mine, a.cluster->host(), workers);
  if (!backend_kind(spec.backend).needs_gpu) warn_shared_cpus(t, spec, workers);  // ranks share its cores
  return std::make_unique<ClusterBackend>(std::move(local), *a.cluster, std::move(workers), spec.space);
}

}  // namespace adaexplore
