// The runner's side (runner.hpp): `adaexplore-tuner runner [--cudart LIB]`, hidden from --help;
// the tuner starts it, nobody else needs to.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include <csignal>

#include <thread>

#include <dlfcn.h>
#include <fcntl.h>
#include <malloc.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "evaluate/runner.hpp"
#include "util/text.hpp"

// The runner's store for Benchmark::once (templates/adaexplore/harness_common.hpp,
// once_per_runner): host data that modules compute once and later modules copy. Exported from the
// executable (tuner/CMakeLists.txt: --export-dynamic-symbol) for modules to find with dlsym;
// C linkage, no exceptions across the boundary. Single-threaded use: one module at a time.
namespace {
struct RunnerStore {
  std::map<std::string, std::vector<unsigned char>> entries;
  std::size_t bytes = 0;
  static constexpr std::size_t kLimit = std::size_t(16) << 30;  // 16 GiB
};
RunnerStore& runner_store() {
  static RunnerStore store;
  return store;
}
}  // namespace

/// The bytes kept under `key`, or null; their size in *bytes.
extern "C" __attribute__((visibility("default"), used)) const void* adaexplore_runner_find(const char* key,
                                                                                           std::size_t* bytes) {
  auto& store = runner_store();
  const auto it = store.entries.find(key);
  if (it == store.entries.end()) return nullptr;
  *bytes = it->second.size();
  return it->second.data();
}

/// Room for `bytes` under `key` (replacing what was there), for the caller to fill; null when the
/// store would grow past its limit or memory runs out.
extern "C" __attribute__((visibility("default"), used)) void* adaexplore_runner_keep(const char* key,
                                                                                     std::size_t bytes) {
  auto& store = runner_store();
  try {
    auto& entry = store.entries[key];
    store.bytes -= entry.size();
    if (store.bytes + bytes > RunnerStore::kLimit) {
      store.entries.erase(key);
      return nullptr;
    }
    entry.assign(bytes, 0);
    store.bytes += bytes;
    return entry.data();
  } catch (const std::exception&) {
    return nullptr;
  }
}

// The runner's pool of device allocations (the CUDA harness's buffers, harness.cuh
// Benchmark::allocate): a module gives its cudaMalloc'd blocks back when it ends instead of
// freeing them, and the next module, which asks for the same sizes (the same benchmark), takes
// them instead of paying cudaMalloc and cudaFree (which synchronizes the device) again. Blocks
// are taken by exact size. After each module the runner frees the blocks the module did not take
// back (device_pool_after_module), so the pool never holds more than one module's buffers; a module whose
// cudaMalloc fails asks for them all to be freed (adaexplore_runner_release_device) and retries.
// The content of a block is whatever the last module left: the harness uploads inputs, restores
// inout buffers and poisons outputs before the checked run, as it would a new allocation.
namespace {
struct DeviceBlock {
  void* pointer;
  std::size_t bytes;
  unsigned long long module;  // the module that gave it back
};
struct DevicePool {
  std::vector<DeviceBlock> blocks;
  unsigned long long module = 0;    // the module being run
  int (*free_memory)(void*) = nullptr;  // cudaFree, set when the runner loaded the CUDA runtime
};
DevicePool& device_pool() {
  static DevicePool pool;
  return pool;
}
// Frees the blocks that `keep_if` rejects.
template <typename Keep>
void device_pool_free_unless(Keep keep_if) {
  auto& pool = device_pool();
  std::vector<DeviceBlock> kept;
  for (const DeviceBlock& b : pool.blocks)
    if (keep_if(b) || !pool.free_memory)
      kept.push_back(b);
    else
      pool.free_memory(b.pointer);
  pool.blocks.swap(kept);
}
}  // namespace

/// A device block of exactly `bytes` bytes that an earlier module gave back (it is the caller's
/// now), or null.
extern "C" __attribute__((visibility("default"), used)) void* adaexplore_runner_take_device(std::size_t bytes) {
  auto& pool = device_pool();
  for (auto it = pool.blocks.begin(); it != pool.blocks.end(); ++it)
    if (it->bytes == bytes) {
      void* p = it->pointer;
      pool.blocks.erase(it);
      return p;
    }
  return nullptr;
}

/// Keeps `pointer`, a cudaMalloc'd block of `bytes` bytes, for the next module; 0 when the runner
/// cannot free device memory (no CUDA runtime loaded): the caller frees it then.
extern "C" __attribute__((visibility("default"), used)) int adaexplore_runner_give_device(void* pointer,
                                                                                         std::size_t bytes) {
  auto& pool = device_pool();
  if (!pool.free_memory) return 0;
  try {
    pool.blocks.push_back({pointer, bytes, pool.module});
    return 1;
  } catch (const std::exception&) {
    return 0;
  }
}

/// Frees every pooled block (a module short of device memory asks for this before it retries).
extern "C" __attribute__((visibility("default"), used)) void adaexplore_runner_release_device() {
  device_pool_free_unless([](const DeviceBlock&) { return false; });
}

namespace adaexplore {
namespace {

using Clock = std::chrono::steady_clock;


double ms_since(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

// The few CUDA runtime entry points the runner needs, from the library the modules link; the
// runner itself is not linked against CUDA (host modules need none).
struct CudaRuntime {
  using Status = int;  // cudaError_t
  void* library = nullptr;
  Status (*free_memory)(void*) = nullptr;      // cudaFree
  Status (*synchronize)() = nullptr;            // cudaDeviceSynchronize
  Status (*last_error)() = nullptr;             // cudaGetLastError
  const char* (*error_name)(Status) = nullptr;  // cudaGetErrorName

  explicit CudaRuntime(const std::string& path) {
    if (path.empty()) return;
    library = dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL);
    if (!library) {
      std::fprintf(stderr, "adaexplore runner: cannot load the CUDA runtime %s: %s\n", path.c_str(), dlerror());
      return;
    }
    free_memory = reinterpret_cast<Status (*)(void*)>(dlsym(library, "cudaFree"));
    synchronize = reinterpret_cast<Status (*)()>(dlsym(library, "cudaDeviceSynchronize"));
    last_error = reinterpret_cast<Status (*)()>(dlsym(library, "cudaGetLastError"));
    error_name = reinterpret_cast<const char* (*)(Status)>(dlsym(library, "cudaGetErrorName"));
    if (free_memory) {
      const Status s = free_memory(nullptr);  // creates the primary context now
      if (s != 0) std::fprintf(stderr, "adaexplore runner: cudaFree(0) failed: %s\n", name(s));
    }
  }
  const char* name(Status s) const { return error_name ? error_name(s) : "?"; }
  // After a module: any error on synchronizing means the context cannot be used any more (a
  // sticky error); a non-sticky error left unread is cleared so the next module does not see it.
  std::string check_after_module() const {
    if (!synchronize) return {};
    const Status s = synchronize();
    if (last_error) last_error();
    return s == 0 ? std::string() : std::string("cudaDeviceSynchronize after the module: ") + name(s);
  }
};

// Points fd `target` at `path` (truncated), or at /dev/null when empty; false on failure.
bool redirect(int target, const std::string& path) {
  const int fd = path.empty() ? ::open("/dev/null", O_WRONLY) : ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) return false;
  const bool ok = ::dup2(fd, target) >= 0;
  ::close(fd);
  return ok;
}

void write_all(int fd, const std::string& text) {
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n <= 0) return;
    done += static_cast<std::size_t>(n);
  }
}

using Entry = int (*)(int, char**);

}  // namespace

void set_device_pool_free(int (*free_memory)(void*)) { device_pool().free_memory = free_memory; }

void device_pool_after_module() {
  const unsigned long long current = device_pool().module;
  device_pool_free_unless([current](const DeviceBlock& b) { return b.module == current; });
  ++device_pool().module;
}

namespace {

// A module's entry called with `args` (a thrown exception is what std::terminate would have said),
// its time and exit code into `reply`, and the CUDA context checked after it. True when the runner
// must end (its context is lost).
bool run_entry(Entry entry, std::vector<std::string>& args, const CudaRuntime& cuda, nlohmann::json& reply) {
  bool lost = false;
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  const auto t = Clock::now();
  int code = 0;
  try {
    code = entry(static_cast<int>(args.size()), argv.data());
  } catch (const std::exception& e) {  // a process would have ended in std::terminate
    std::fprintf(stderr, "terminate called after throwing an exception: %s\n", e.what());
    code = 134;
    lost = true;
  } catch (...) {
    std::fprintf(stderr, "terminate called after throwing an exception of unknown type\n");
    code = 134;
    lost = true;
  }
  reply["main_ms"] = ms_since(t);
  reply["exit_code"] = code;
  std::fflush(nullptr);
  std::cout.flush();
  std::cerr.flush();
  const std::string cuda_error = cuda.check_after_module();
  if (!cuda_error.empty()) {
    std::fprintf(stderr, "adaexplore runner: %s; the runner exits\n", cuda_error.c_str());
    lost = true;
  }
  return lost;
}

// One request line: its module loaded (or found among `kept`), run with its arguments, its output
// files and folder, and unloaded unless kept; what happened into `reply`. True when the runner
// must end.
bool serve_request(const std::string& line, std::map<std::string, void*>& kept, const CudaRuntime& cuda,
                   nlohmann::json& reply) {
  bool lost = false;
  const auto request = nlohmann::json::parse(line);
  const std::string module = request.at("module").get<std::string>();
  std::vector<std::string> args = {module};
  for (const auto& a : request.at("args")) args.push_back(a.get<std::string>());
  redirect(1, request.value("stdout", std::string()));
  redirect(2, request.value("stderr", std::string()));
  const std::string directory = request.value("directory", std::string());
  if (!directory.empty() && ::chdir(directory.c_str()) != 0) std::perror("adaexplore runner: chdir");

  auto t = Clock::now();
  const bool keep = request.value("keep", false);
  const auto known = kept.find(module);
  void* handle = known != kept.end() ? known->second : dlopen(module.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (keep && handle && known == kept.end()) kept[module] = handle;
  Entry entry = handle ? reinterpret_cast<Entry>(dlsym(handle, "adaexplore_module_entry")) : nullptr;
  reply["load_ms"] = ms_since(t);
  if (!entry) {
    const char* why = dlerror();
    reply["load_error"] = std::string(handle ? "no adaexplore_module_entry in " : "cannot load ") + module + ": " +
                          (why ? why : "unknown error");
    reply["exit_code"] = 127;
    std::fprintf(stderr, "adaexplore runner: %s\n", reply["load_error"].get<std::string>().c_str());
  } else {
    lost = run_entry(entry, args, cuda, reply);
  }
  t = Clock::now();
  if (handle && !kept.count(module)) dlclose(handle);
  if (!lost) device_pool_after_module();
  reply["unload_ms"] = ms_since(t);
  return lost;
}

}  // namespace

int runner_main(const std::string& cudart) {
  // The reply channel is the stdout the tuner gave us; fd 1 itself goes to each request's file.
  // Gone with the tuner, even while a module hangs in a kernel: a runner left behind would hold
  // the GPU. (Not PR_SET_PDEATHSIG: it fires when the thread that started the runner ends, and the
  // tuner starts runners from its compile workers.)
  const pid_t parent = ::getppid();
  std::thread([parent] {
    while (::getppid() == parent) std::this_thread::sleep_for(std::chrono::milliseconds(500));
    std::_Exit(0);
  }).detach();
  // Kept from the programs the modules start (close-on-exec), so that the runner's end of file
  // reaches the tuner when it dies.
  const int replies = ::fcntl(1, F_DUPFD_CLOEXEC, 3);
  const int own_stderr = ::fcntl(2, F_DUPFD_CLOEXEC, 3);
  if (replies < 0 || own_stderr < 0 || !redirect(1, "")) {
    std::perror("adaexplore runner: cannot set up its file descriptors");
    return 70;
  }
  // Host memory freed by one module stays in the runner's heap for the next: large blocks come
  // from the heap instead of their own mmap (returned to the system on free), and the heap is
  // never trimmed. A benchmark's host buffers (inputs, references, downloads: 64 MiB each for
  // gemm) are then reused with their pages already mapped; a fresh one pays a page fault per
  // 4 KiB page, 40 ms per 64 MiB on the H200 machine (bench/setup_costs.cu, 1.7 GB/s) against
  // about 6 ms to zero reused memory. (glibc falls back to mmap when the heap cannot grow.)
  mallopt(M_MMAP_MAX, 0);
  mallopt(M_TRIM_THRESHOLD, -1);
  const CudaRuntime cuda(cudart);
  set_device_pool_free(cuda.free_memory);
  write_all(replies, "{\"ready\": true}\n");
  std::map<std::string, void*> kept;  // modules requested with "keep": loaded once, never closed
  std::string line;
  while (std::getline(std::cin, line)) {
    nlohmann::json reply = {{"exit_code", 0}, {"load_ms", 0.0}, {"main_ms", 0.0}, {"unload_ms", 0.0},
                            {"context_lost", false}, {"load_error", ""}};
    bool lost = false;
    try {
      lost = serve_request(line, kept, cuda, reply);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "adaexplore runner: bad request (%s): %s\n", e.what(), line.c_str());
      reply["exit_code"] = 64;
      reply["load_error"] = std::string("bad request: ") + e.what();
    }
    std::fflush(nullptr);
    redirect(1, "");
    ::dup2(own_stderr, 2);
    reply["context_lost"] = lost;
    write_all(replies, valid_utf8_json(std::move(reply)).dump() + "\n");  // a load error may quote any bytes
    if (lost) return 0;
  }
  return 0;
}

Command register_runner_command(CLI::App& app) {
  auto* sub = app.add_subcommand("runner", "The long-lived benchmark runner the tuner starts (internal).");
  sub->group("");  // hidden from --help
  auto cudart = std::make_shared<std::string>();
  sub->add_option("--cudart", *cudart, "CUDA runtime library the modules link (libcudart.so)");
  return {sub, [cudart] { return runner_main(*cudart); }};
}

}  // namespace adaexplore
