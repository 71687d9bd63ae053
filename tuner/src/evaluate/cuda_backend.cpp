// `cuda`: the benchmark built with nvcc for one architecture (never -arch=native: the tuning
// target is explicit), the ptxas report read into the kernels' resources and checked against the
// device's limits before any GPU time is spent (with the launch shape of the spec's "launch"
// section, when given: threads per block, registers per block, dynamic shared memory); the
// benchmark times with CUDA events.
#include <algorithm>
#include <map>
#include <stdexcept>

#include "evaluate/backends.hpp"
#include "evaluate/program_backend.hpp"
#include "evaluate/program_outcome.hpp"
#include "evaluate/ptxas.hpp"
#include "evaluate/resource_check.hpp"
#include "evaluate/runner.hpp"

namespace adaexplore {
namespace {

// "90" and "9.0" -> "sm_90"; "sm_90a", "compute_90" unchanged.
std::string normalized_arch(const std::string& arch) {
  if (arch.empty() || !std::isdigit(static_cast<unsigned char>(arch.front()))) return arch;
  std::string digits;
  for (char c : arch)
    if (c != '.') digits += c;
  return "sm_" + digits;
}

std::string target_arch(const Spec& spec, const DeviceInfo& device) {
  if (!spec.compiler.arch.empty()) return normalized_arch(spec.compiler.arch);
  if (device.present) return device.arch();
  throw std::runtime_error("cuda backend: no target architecture: no GPU was detected (" +
                           device.reason + ") and " + spec.file.string() +
                           " sets no compiler.arch (e.g. \"sm_90\")");
}

// The GPU's own limits when there is one; else the table's for the target architecture.
DeviceLimits target_limits(const DeviceInfo& device, const std::string& arch) {
  if (device.present) return device.limits;
  return limits_for_compute_capability(arch).value_or(DeviceLimits{});
}

class CudaBackend final : public ProgramBackend {
 public:
  CudaBackend(const Spec& spec, const std::vector<DeviceInfo>& devices)
      : ProgramBackend(spec, /*kernel_unit_capable=*/true),
        device_(devices.front()),
        devices_(devices),
        arch_(target_arch(spec, devices.front())),
        limits_(target_limits(devices.front(), arch_)),
        cudart_(cudart_library_for(find_program(spec.compiler.path))) {}

  std::string name() const override { return "cuda"; }

  nlohmann::json device() const override {
    nlohmann::json j = device_.to_json();
    j["nvcc"] = compiler_version("release");
    j["arch"] = arch_;
    return j;
  }

 protected:
  // nvcc's -O is the optimization level of the *host* code only (the device code is optimized by
  // cicc and ptxas whatever -O says). The benchmark's host side (the harness, the verification, a
  // reference) builds at -O1: about 40 % less host compile time per configuration than -O3 (the
  // largest single part of a compile), and a reference computed once per runner
  // (Benchmark::once) does not need more. A -O flag in the spec's compiler.flags (CMake
  // COMPILE_OPTIONS) replaces it.
  std::vector<std::string> toolchain_flags() const override {
    const auto& user = spec().compiler.flags;
    bool user_level = false;
    for (std::size_t i = 0; i < user.size(); ++i) {
      const std::string& f = user[i];
      // the value of an option for another tool (-Xptxas -O3, -Xcompiler -O2) is not nvcc's -O
      if (f == "-Xptxas" || f == "-Xcompiler" || f == "-Xlinker" || f == "-Xnvlink" || f == "-Xarchive" ||
          f == "--ptxas-options" || f == "--compiler-options" || f == "--linker-options") {
        ++i;
        continue;
      }
      if (f.rfind("-O", 0) == 0 || f.rfind("--optimize", 0) == 0 || f == "-optimize") user_level = true;
    }
    std::vector<std::string> flags = {"-std=c++17"};
    if (!user_level) flags.push_back("-O1");
    for (const std::string& f : {"-arch=" + arch_, std::string("-Xptxas"), std::string("-v"), std::string("-lineinfo")})
      flags.push_back(f);
    return flags;
  }

  // A shared library with the CUDA runtime shared (every module and the runner use one runtime,
  // hence one context), no unresolved symbols left for dlopen to find (a link error is a
  // compile_error, as for an executable), no STB_GNU_UNIQUE symbols (they would make dlclose a
  // no-op and tie one module's inline statics to the next), the toolkit's library folder as rpath.
  std::vector<std::string> module_flags() const override {
    std::vector<std::string> flags = {"-shared", "-Xcompiler", "-fPIC", "-Xcompiler", "-fno-gnu-unique",
                                      "-cudart", "shared", "-Xlinker", "--no-undefined", "-DADAEXPLORE_MODULE=1"};
    if (!cudart_.empty()) flags.insert(flags.end(), {"-Xlinker", "-rpath=" + cudart_.parent_path().string()});
    return flags;
  }

  // The kernel unit (compiler.unit, kernel_unit.hpp): device code only, a cubin for the target
  // architecture, with the ptxas report and line information as for the whole program. No -O: it
  // is the host code's level, and there is none here.
  std::vector<std::string> kernel_unit_flags() const override {
    return {"-std=c++17", "-cubin", "-arch=" + arch_, "-Xptxas", "-v", "-lineinfo"};
  }

  std::size_t measure_slots() const override { return devices_.size(); }

  bool separate_harness() const override { return true; }
  std::vector<std::string> harness_object_flags() const override { return {"-x", "c++"}; }

  // The slot's GPU alone visible to its benchmark (by UUID: right whatever CUDA_VISIBLE_DEVICES the
  // tuner itself was given), so the harness's device 0 is the one the tuning names. A tuning on
  // device 0 alone leaves the environment as it is (the benchmark's device 0 is already it).
  std::map<std::string, std::string> slot_environment(std::size_t slot) const override {
    const DeviceInfo& d = devices_.at(slot);
    if (!d.present || d.uuid.empty() || (devices_.size() == 1 && d.index == 0)) return {};
    return {{"CUDA_VISIBLE_DEVICES", d.uuid}};
  }
  nlohmann::json slot_device(std::size_t slot) const override {
    const DeviceInfo& d = devices_.at(slot);
    if (!d.present) return nullptr;
    return {{"index", d.index}, {"uuid", d.uuid}, {"pci_bus_id", d.pci_bus_id}};
  }

  std::vector<std::string> runner_arguments() const override {
    if (cudart_.empty()) return {};
    return {"--cudart", cudart_.string()};
  }

  // Decided before compiling, from the spec's launch expressions and the device's limits alone
  // (resource_check.hpp launch_verdict): no compile is paid for these.
  std::optional<Outcome> check_statically(const Config& config) const override {
    return launch_verdict(spec().launch, spec().space, config, limits_, arch_, size_values());
  }

  // Measured outcomes carry the launch's threads per block (extra.figures.threads, with its limit),
  // so that the knowledge base can fit it over the parameters from successes too
  // (resource_rules.hpp) and predict the configurations over the limit before meeting one.
  void annotate(Outcome& outcome, const Prepared& prepared) const override {
    const LaunchShape launch = launch_shape(spec().launch, spec().space, prepared.config, size_values());
    if (!launch.threads_per_block) return;
    if (!outcome.extra.is_object()) outcome.extra = nlohmann::json::object();
    outcome.extra["figures"]["threads"] = *launch.threads_per_block;
    outcome.extra["limits"]["threads"] = limits_.max_threads_per_block;
  }

  // A resource verdict keeps its figures in extra: {"resource", "kernel", "used", "limit"}.
  std::optional<Outcome> review_compile(const ProcessResult& compile,
                                        Prepared& prepared) const override {
    const std::string output = compile.err + "\n" + compile.out;
    prepared.resources = parse_ptxas_report(output);  // the kernels ptxas got through
    prepared.ptxas_warnings = find_ptxas_warnings(output);
    // The harness's own kernels (Benchmark::gather, Benchmark::nonfinite: namespace
    // adaexplore::detail) and the template's exported values (ADAEXPLORE_EXPORT: one-thread
    // kernels adaexplore_export_<name>) are not the tuned kernel's: not in its figures, not
    // checked against its launch shape.
    prepared.resources.erase(std::remove_if(prepared.resources.begin(), prepared.resources.end(),
                                            [](const KernelResources& k) {
                                              return k.kernel.find("adaexplore6detail") != std::string::npos ||
                                                     k.kernel.find("adaexplore::detail::") != std::string::npos ||
                                                     k.kernel.rfind("adaexplore_export_", 0) == 0;
                                            }),
                             prepared.resources.end());
    if (!compile.ok()) {
      const auto rejected = find_ptxas_resource_error(output);
      if (!rejected) return std::nullopt;
      return resource_limit("ptxas rejected the kernel: " + rejected->message, compile,
                            rejected->what, rejected->kernel, rejected->used, rejected->limit);
    }
    const LaunchShape launch = launch_shape(spec().launch, spec().space, prepared.config, size_values());
    const auto violation = check_resources(prepared.resources, limits_, launch);
    if (!violation) return std::nullopt;
    return resource_limit(violation->reason + " (" + arch_ + ", static check" + launch_source(spec().launch, launch) + ")",
                          compile, violation->what, violation->kernel, violation->used, violation->limit);
  }

 private:
  // The size being tuned, for the launch expressions that read a size name; null: none.
  const std::vector<long long>* size_values() const { return spec().size ? &spec().size->values : nullptr; }

  static Outcome resource_limit(const std::string& summary, const ProcessResult& compile,
                                Resource what, const std::string& kernel, long used, long limit) {
    Outcome o = process_failure(Status::resource_limit, summary, compile);
    o.extra = resource_extra(what, kernel, used, limit);
    return o;
  }

  DeviceInfo device_;                // the first of devices_: limits, key, architecture
  std::vector<DeviceInfo> devices_;  // one measuring worker each (same model)
  std::string arch_;
  DeviceLimits limits_;
  std::filesystem::path cudart_;  // the compiler's toolkit's libcudart.so; empty when not found
};

}  // namespace

std::unique_ptr<Backend> make_cuda_backend(const Spec& spec, const DeviceInfo& device) {
  return std::make_unique<CudaBackend>(spec, std::vector<DeviceInfo>{device});
}

std::unique_ptr<Backend> make_cuda_backend(const Spec& spec, const std::vector<DeviceInfo>& devices) {
  if (devices.empty()) throw std::invalid_argument("make_cuda_backend: no device");
  for (const auto& d : devices)
    if (d.name != devices.front().name || d.compute_capability() != devices.front().compute_capability())
      throw std::runtime_error("cuda backend: GPU " + std::to_string(devices.front().index) + " (" +
                               devices.front().name + ", compute capability " + devices.front().compute_capability() +
                               ") and GPU " + std::to_string(d.index) + " (" + d.name + ", compute capability " +
                               d.compute_capability() + ") are different models: a tuning measures on GPUs of one "
                               "model; tune each model separately (--device)");
  return std::make_unique<CudaBackend>(spec, devices);
}

}  // namespace adaexplore
