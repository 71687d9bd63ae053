#include "evaluate/device.hpp"

#include <dlfcn.h>

#include <cstdio>
#include <map>
#include <type_traits>

#ifdef ADAEXPLORE_HAVE_CUDART
#include <cuda_runtime_api.h>
#endif

namespace adaexplore {

std::string cuda_version_string(int version) {
  if (version <= 0) return "unknown";
  return std::to_string(version / 1000) + "." + std::to_string((version % 1000) / 10);
}

nlohmann::json DeviceInfo::to_json() const {
  if (!present) return {{"present", false}, {"reason", reason}};
  return {{"present", true},
          {"index", index},
          {"name", name},
          {"compute_capability", compute_capability()},
          {"sm_count", sm_count},
          {"memory_bytes", memory_bytes},
          {"driver_version", cuda_version_string(driver_version)},
          {"runtime_version", cuda_version_string(runtime_version)},
          {"uuid", uuid},
          {"pci_bus_id", pci_bus_id},
          {"limits",
           {{"shared_per_block", limits.shared_per_block},
            {"shared_per_block_optin", limits.shared_per_block_optin},
            {"shared_per_sm", limits.shared_per_sm},
            {"registers_per_block", limits.registers_per_block},
            {"registers_per_sm", limits.registers_per_sm},
            {"max_threads_per_block", limits.max_threads_per_block},
            {"max_threads_per_sm", limits.max_threads_per_sm}}}};
}

std::optional<DeviceLimits> recorded_limits(const nlohmann::json& l) {
  if (!l.is_object()) return std::nullopt;
  DeviceLimits limits;
  auto take = [&](const char* key, auto& field) {
    if (l.contains(key) && l[key].is_number_integer()) field = l[key].get<std::decay_t<decltype(field)>>();
  };
  take("max_threads_per_block", limits.max_threads_per_block);
  take("max_threads_per_sm", limits.max_threads_per_sm);
  take("registers_per_block", limits.registers_per_block);
  take("registers_per_sm", limits.registers_per_sm);
  take("shared_per_block", limits.shared_per_block);
  take("shared_per_block_optin", limits.shared_per_block_optin);
  take("shared_per_sm", limits.shared_per_sm);
  return limits;
}

std::optional<DeviceLimits> limits_for_compute_capability(const std::string& cc_text) {
  std::string digits;
  for (char c : cc_text)
    if (std::isdigit(static_cast<unsigned char>(c))) digits += c;
  // CUDA C++ Programming Guide, "Technical Specifications per Compute Capability".
  // {shared per block opt-in, shared per SM, max threads per SM, registers per block}
  struct Row { long optin; long per_sm; int threads_sm; int regs_block; };
  static const std::map<std::string, Row> table = {
      {"50", {48 * 1024, 64 * 1024, 2048, 65536}},   {"52", {48 * 1024, 96 * 1024, 2048, 32768}},
      {"53", {48 * 1024, 64 * 1024, 2048, 32768}},   {"60", {48 * 1024, 64 * 1024, 2048, 65536}},
      {"61", {48 * 1024, 96 * 1024, 2048, 65536}},   {"62", {48 * 1024, 64 * 1024, 2048, 65536}},
      {"70", {96 * 1024, 96 * 1024, 2048, 65536}},   {"72", {96 * 1024, 96 * 1024, 2048, 65536}},
      {"75", {64 * 1024, 64 * 1024, 1024, 65536}},   {"80", {163 * 1024, 164 * 1024, 2048, 65536}},
      {"86", {99 * 1024, 100 * 1024, 1536, 65536}},  {"87", {163 * 1024, 164 * 1024, 1536, 65536}},
      {"89", {99 * 1024, 100 * 1024, 1536, 65536}},  {"90", {227 * 1024, 228 * 1024, 2048, 65536}},
      {"100", {227 * 1024, 228 * 1024, 2048, 65536}}, {"103", {227 * 1024, 228 * 1024, 2048, 65536}},
      {"120", {99 * 1024, 100 * 1024, 1536, 65536}},
  };
  auto it = table.find(digits);
  if (it == table.end()) return std::nullopt;
  DeviceLimits l;
  l.shared_per_block_optin = it->second.optin;
  l.shared_per_sm = it->second.per_sm;
  l.max_threads_per_sm = it->second.threads_sm;
  l.registers_per_block = it->second.regs_block;
  l.registers_per_sm = 65536;
  return l;
}

std::string no_device_reason(const std::string& cuda_error, const std::optional<std::string>& driver_load_error) {
  if (!driver_load_error) return cuda_error;
  return "no NVIDIA driver or GPU (libcuda.so.1 cannot be loaded: " + *driver_load_error + "). CUDA runtime: " +
         cuda_error;
}

std::optional<std::string> driver_load_error() {
  if (void* driver = ::dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL)) {
    ::dlclose(driver);
    return std::nullopt;
  }
  const char* error = ::dlerror();
  return std::string(error ? error : "dlopen failed");
}

DeviceInfo query_device(int index) {
  DeviceInfo info;
  info.index = index;
#ifdef ADAEXPLORE_HAVE_CUDART
  int count = 0;
  cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess) {
    info.reason = no_device_reason(
        std::string("cudaGetDeviceCount: ") + cudaGetErrorName(err) + " (" + cudaGetErrorString(err) + ")",
        driver_load_error());
    return info;
  }
  if (index < 0 || index >= count) {
    info.reason = "device " + std::to_string(index) + " requested, the CUDA runtime sees " + std::to_string(count);
    return info;
  }
  cudaDeviceProp p{};
  err = cudaGetDeviceProperties(&p, index);
  if (err != cudaSuccess) {
    info.reason = std::string("cudaGetDeviceProperties: ") + cudaGetErrorName(err);
    return info;
  }
  info.present = true;
  info.name = p.name;
  info.cc_major = p.major;
  info.cc_minor = p.minor;
  info.sm_count = p.multiProcessorCount;
  info.memory_bytes = static_cast<long long>(p.totalGlobalMem);
  {
    char hex[3 * 16 + 8] = {};
    std::string id = "GPU-";
    for (int i = 0; i < 16; ++i) {
      std::snprintf(hex, sizeof hex, "%02x", static_cast<unsigned char>(p.uuid.bytes[i]));
      id += hex;
      if (i == 3 || i == 5 || i == 7 || i == 9) id += '-';
    }
    info.uuid = id;
    char bus[32] = {};
    if (cudaDeviceGetPCIBusId(bus, sizeof bus, index) == cudaSuccess) info.pci_bus_id = bus;
  }
  cudaDriverGetVersion(&info.driver_version);
  cudaRuntimeGetVersion(&info.runtime_version);
  info.limits.shared_per_block = static_cast<long>(p.sharedMemPerBlock);
  info.limits.shared_per_block_optin = static_cast<long>(p.sharedMemPerBlockOptin);
  info.limits.shared_per_sm = static_cast<long>(p.sharedMemPerMultiprocessor);
  info.limits.registers_per_block = p.regsPerBlock;
  info.limits.registers_per_sm = p.regsPerMultiprocessor;
  info.limits.max_threads_per_block = p.maxThreadsPerBlock;
  info.limits.max_threads_per_sm = p.maxThreadsPerMultiProcessor;
  info.limits.warp_size = p.warpSize;
#else
  info.reason = "the tuner was built without the CUDA runtime (CUDAToolkit not found at its build)";
#endif
  return info;
}

}  // namespace adaexplore
