// `host`: C++ kernels built with the host compiler (the spec's compiler, default c++; the CMake
// module passes CMAKE_CXX_COMPILER) and timed on the CPU by harness_host.hpp. Real compile
// errors, crashes and timings on machines without a GPU.
#include <fstream>

#include "evaluate/backends.hpp"
#include "evaluate/program_backend.hpp"

namespace adaexplore {
namespace {

// "model name : AMD EPYC 9654 96-Core Processor" from /proc/cpuinfo (Linux).
std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) != 0) continue;
    const auto start = line.find_first_not_of(" \t", line.find(':') + 1);
    if (line.find(':') != std::string::npos && start != std::string::npos)
      return line.substr(start);
  }
  return "unknown CPU";
}

class HostBackend final : public ProgramBackend {
 public:
  explicit HostBackend(const Spec& spec) : ProgramBackend(spec, /*kernel_unit_capable=*/false) {}

  std::string name() const override { return "host"; }

  nlohmann::json device() const override {
    return {{"name", cpu_model()}, {"compiler", compiler_version()}};
  }

 protected:
  std::vector<std::string> toolchain_flags() const override { return {"-std=c++17", "-O2"}; }

  // A shared library that dlopen can load without unresolved symbols (a link error stays a
  // compile_error) and, with GCC, no STB_GNU_UNIQUE symbols (they would make dlclose a no-op).
  std::vector<std::string> module_flags() const override {
    std::vector<std::string> flags = {"-shared", "-fPIC", "-Wl,--no-undefined", "-DADAEXPLORE_MODULE=1"};
    if (compiler_version().find("clang") == std::string::npos) flags.push_back("-fno-gnu-unique");
    return flags;
  }

  std::optional<Outcome> review_compile(const ProcessResult&, Prepared&) const override {
    return std::nullopt;
  }
};

}  // namespace

std::unique_ptr<Backend> make_host_backend(const Spec& spec) {
  return std::make_unique<HostBackend>(spec);
}

}  // namespace adaexplore
