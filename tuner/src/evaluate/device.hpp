// The GPU: presence and properties from the CUDA runtime (never from parsing tool output), and
// the resource limits per compute capability for machines without a GPU (CI, cross builds).
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace adaexplore {

/// Per-block and per-SM limits that decide whether a compiled kernel can launch at all.
struct DeviceLimits {
  long shared_per_block = 48 * 1024;        // bytes, static + dynamic without opt-in
  long shared_per_block_optin = 48 * 1024;  // bytes, dynamic with cudaFuncAttributeMaxDynamicSharedMemorySize
  long shared_per_sm = 64 * 1024;           // bytes
  int registers_per_thread = 255;
  int registers_per_block = 65536;
  int registers_per_sm = 65536;
  int max_threads_per_block = 1024;
  int max_threads_per_sm = 2048;
  int warp_size = 32;
};

struct DeviceInfo {
  bool present = false;
  std::string reason;  // when !present: why (the CUDA runtime's error name and text; see no_device_reason)
  int index = 0;
  std::string name;
  int cc_major = 0, cc_minor = 0;
  int sm_count = 0;
  long long memory_bytes = 0;
  int driver_version = 0;   // as cudaDriverGetVersion: 1000*major + 10*minor
  int runtime_version = 0;  // as cudaRuntimeGetVersion
  std::string uuid;         // "GPU-8-4-4-4-12 hex" as nvidia-smi prints it (cudaDeviceProp::uuid); empty if unknown
  std::string pci_bus_id;   // "0000:3b:00.0" (cudaDeviceGetPCIBusId); empty if unknown
  DeviceLimits limits;

  std::string compute_capability() const { return std::to_string(cc_major) + "." + std::to_string(cc_minor); }
  std::string arch() const { return "sm_" + std::to_string(cc_major) + std::to_string(cc_minor); }
  /// {"name", "compute_capability", "sm_count", "memory_bytes", "driver_version", "runtime_version",
  ///  "index", "uuid", "pci_bus_id", "limits"}. The tuning database's key leaves out index, uuid and
  ///  pci_bus_id (two GPUs of one model share results; they stay recorded in the results file).
  nlohmann::json to_json() const;
};

/// Queries device `index` through the CUDA runtime. When the tuner was built without the CUDA
/// runtime, or there is no driver or no device, returns present = false with the reason.
DeviceInfo query_device(int index = 0);

/// Why there is no GPU, from the CUDA runtime's error (`cuda_error`, "cudaGetDeviceCount:
/// cudaErrorInsufficientDriver (...)") and, when the NVIDIA driver's library cannot be loaded,
/// the loader's error (`driver_load_error`): without a driver the runtime still says "driver
/// version is insufficient", so the reason then says first that there is no driver, e.g.
///   no NVIDIA driver or GPU (libcuda.so.1 cannot be loaded: libcuda.so.1: cannot open shared
///   object file: No such file or directory). CUDA runtime: cudaGetDeviceCount:
///   cudaErrorInsufficientDriver (CUDA driver version is insufficient for CUDA runtime version)
/// and `cuda_error` alone when the driver loads (nullopt).
std::string no_device_reason(const std::string& cuda_error, const std::optional<std::string>& driver_load_error);

/// Why the NVIDIA driver's user-space library (libcuda.so.1) cannot be loaded (dlerror's text),
/// or nullopt when it loads.
std::optional<std::string> driver_load_error();

/// Limits of a compute capability ("90", "9.0", "sm_90") from the CUDA programming guide's
/// table; std::nullopt for an unknown one.
std::optional<DeviceLimits> limits_for_compute_capability(const std::string& cc);

/// The limits a results header records (DeviceInfo::to_json's "limits" object: whole numbers of
/// bytes, registers and threads): each key present as a whole number taken, every other left at
/// DeviceLimits' default. std::nullopt when `limits` is not a JSON object.
std::optional<DeviceLimits> recorded_limits(const nlohmann::json& limits);

/// "13.0" from 13000.
std::string cuda_version_string(int version);

}  // namespace adaexplore
