#include "evaluate/program_backend.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <thread>

#include <unistd.h>

#include "evaluate/program_outcome.hpp"
#include "evaluate/render.hpp"
#include "model/generated_benchmark.hpp"
#include "util/cpus.hpp"
#include "util/hash.hpp"
#include "util/files.hpp"

namespace adaexplore {
namespace {

namespace fs = std::filesystem;

std::string seconds(double s) {
  std::ostringstream text;
  text.precision(4);
  text << s << " s";
  return text.str();
}

double ms_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

// Where compiled harness objects are kept (build_harness_object), shared by every tuning of the
// user: $ADAEXPLORE_CACHE_DIR/harness, else $XDG_CACHE_HOME/adaexplore/harness, else
// ~/.cache/adaexplore/harness; <work_dir>/harness when none of them can be created. The names are
// content hashes, so any of them may be deleted between tunings (a tuning whose object disappears
// builds header-only from then on).
fs::path harness_cache_directory(const fs::path& work_dir) {
  std::vector<fs::path> candidates;
  if (const char* d = std::getenv("ADAEXPLORE_CACHE_DIR"); d && *d) candidates.push_back(fs::path(d) / "harness");
  if (const char* d = std::getenv("XDG_CACHE_HOME"); d && *d) candidates.push_back(fs::path(d) / "adaexplore" / "harness");
  if (const char* d = std::getenv("HOME"); d && *d) candidates.push_back(fs::path(d) / ".cache" / "adaexplore" / "harness");
  candidates.push_back(fs::absolute(work_dir / "harness"));
  for (const auto& c : candidates) {
    std::error_code ec;
    fs::create_directories(c, ec);
    if (!ec && fs::is_directory(c, ec) && ::access(c.c_str(), W_OK) == 0) return c;
  }
  return candidates.back();
}

// The folders whose headers no key covers by content (the compiler's identity does): the toolkit's
// own (its include and targets folders: for a compiler in /usr/bin that is /usr/include) and the
// system's; not the rest of the toolkit's prefix (/usr for /usr/bin/nvcc: /usr/local/include,
// where an installed AdaExplore puts its harness and CUTLASS or CUB installs go, /usr/src/app/...
// hold a project's headers: one there that changes must change the key).
std::vector<fs::path> system_header_folders(const fs::path& compiler_path) {
  std::error_code ec;
  const fs::path toolkit = fs::weakly_canonical(find_program(compiler_path), ec).parent_path().parent_path();
  return {toolkit / "include", toolkit / "targets", "/usr/include", "/usr/lib/gcc"};
}

}  // namespace

RunLimit cap_run_limit(double cap_s) {
  if (cap_s <= 0) return {0, "no limit (run.timeout_s 0)"};
  return {cap_s, "the cap run.timeout_s " + seconds(cap_s) + " (the defaults' run time is not known yet)"};
}

RunLimit derive_run_limit(double cap_s, double factor, double floor_s, double baseline_run_s) {
  if (factor <= 0) {
    RunLimit limit = cap_run_limit(cap_s);
    if (cap_s > 0) limit.derivation = "the cap run.timeout_s " + seconds(cap_s) + " (run.timeout_factor 0)";
    return limit;
  }
  const double scaled = factor * baseline_run_s;
  std::ostringstream from;
  from << "run.timeout_factor " << factor << " x the defaults' run time " << seconds(baseline_run_s);
  const std::string cap = cap_s > 0 ? "cap run.timeout_s " + seconds(cap_s) : std::string("no cap");
  if (cap_s > 0 && std::max(floor_s, scaled) > cap_s)
    return {cap_s, "the cap run.timeout_s " + seconds(cap_s) + ", below " + from.str() + " = " +
                       seconds(std::max(floor_s, scaled))};
  if (floor_s >= scaled)
    return {floor_s, "the floor run.timeout_floor_s " + seconds(floor_s) + ", above " + from.str() + " = " +
                         seconds(scaled) + " (" + cap + ")"};
  return {scaled, from.str() + " (floor " + seconds(floor_s) + ", " + cap + ")"};
}

fs::path harness_dir(const Spec& spec) {
  std::vector<fs::path> candidates;
  if (const char* from_env = std::getenv("ADAEXPLORE_HARNESS_DIR"); from_env && *from_env)
    candidates.emplace_back(from_env);
#ifdef ADAEXPLORE_HARNESS_DIR_DEFAULT
  candidates.emplace_back(ADAEXPLORE_HARNESS_DIR_DEFAULT);
#endif
  candidates.insert(candidates.end(), spec.compiler.include_dirs.begin(),
                    spec.compiler.include_dirs.end());
  std::string looked;
  for (const auto& dir : candidates) {
    std::error_code ec;
    if (fs::exists(dir / "adaexplore" / "harness_common.hpp", ec)) return dir;
    looked += " " + dir.string();
  }
  throw std::runtime_error(
      "benchmark harness not found: no adaexplore/harness_common.hpp in" +
      (looked.empty() ? std::string(" (no folder configured)") : looked) +
      "; set ADAEXPLORE_HARNESS_DIR to the folder that holds adaexplore/harness_common.hpp");
}

ProgramBackend::ProgramBackend(const Spec& spec, bool kernel_unit_capable)
    : spec_(spec),
      work_(spec.work_dir),
      harness_(harness_dir(spec)),
      template_text_(template_text(spec)),
      run_limit_(cap_run_limit(spec.run_timeout_s)) {
  if (generated_benchmark(spec_)) {  // before anything reads it (the compile unit's choice, the key's scan)
    fs::create_directories(spec_.benchmark_path.parent_path());
    write_file_if_changed(spec_.benchmark_path, generated_benchmark_source(spec_));
  }
  if (!work_.note().empty()) std::cerr << "[adaexplore] " + spec_.name + ": " + work_.note() + "\n";  // one write
  if (!spec_.run_runner) {
    mode_ = "one process per evaluation (run.runner false)";
  } else if (const fs::path runner = runner_executable(); runner.empty()) {
    mode_ = "one process per evaluation (no runner: this program is not adaexplore-tuner and "
            "ADAEXPLORE_RUNNER is not set)";
  } else {
    runner_command_ = {runner.string(), "runner"};
    mode_ = "runner (modules loaded into one long-lived process, " + runner.filename().string() + " runner)";
  }
  if (find_program(spec_.compiler.path).empty())
    throw std::runtime_error(spec_.backend + " backend: compiler '" + spec_.compiler.path +
                             "' not found (" + spec_.file.string() +
                             ": compiler.path; a name without '/' is looked up in PATH)");
  ProcessOptions options;
  options.timeout_s = 60;
  const ProcessResult version = run_process({spec_.compiler.path, "--version"}, options);
  version_output_ = version.out.empty() ? version.err : version.out;
  toolchain_identity_ = "adaexplore compile cache 2\n" + find_program(spec_.compiler.path).string() + '\n' + version_output_ + '\n';
  for (const char* variable : {"NVCC_PREPEND_FLAGS", "NVCC_APPEND_FLAGS", "NVCC_CCBIN"})
    if (const char* value = std::getenv(variable)) toolchain_identity_ += std::string(variable) + "=" + value + '\n';
  if (kernel_unit_capable) {  // nvcc: the host compiler it calls (-ccbin, NVCC_CCBIN, else c++ on PATH)
    std::string host = std::getenv("NVCC_CCBIN") ? std::getenv("NVCC_CCBIN") : "c++";
    const auto& flags = spec_.compiler.flags;
    for (std::size_t i = 0; i < flags.size(); ++i) {
      if ((flags[i] == "-ccbin" || flags[i] == "--compiler-bindir") && i + 1 < flags.size()) host = flags[i + 1];
      for (const std::string prefix : {"-ccbin=", "--compiler-bindir="})
        if (flags[i].rfind(prefix, 0) == 0) host = flags[i].substr(prefix.size());
    }
    const ProcessResult host_version = run_process({host, "--version"}, options);
    toolchain_identity_ += "host compiler " + host + ": " + host_version.out + host_version.err + '\n';
  }
  unit_ = choose_compile_unit(spec_, rendered_name(spec_), kernel_unit_capable,
                              kernel_unit_capable ? kernel_unit_toolkit_problem(version_output_) : "");
  if (unit_.cubin) {
    // The toolkit's and the system's headers are covered by the compiler's identity in the key.
    cache_ = std::make_unique<CompileCache>(harness_cache_directory(spec_.work_dir).parent_path() / "kernels",
                                            system_header_folders(spec_.compiler.path));
  }
  // The compiler of compiler.unit, with this backend's options and review (Toolchain).
  const CompileSetup setup{spec_, *this, harness_, rendered_name(spec_), !runner_command_.empty(),
                           toolchain_identity_, cache_.get()};
  if (unit_.cubin) cubin_compiler_ = make_kernel_unit_compiler(setup);
  if (!unit_.kernel)
    compiler_ = make_program_compiler(setup, {[this] { return harness_object(); },
                                              [this] { return !separate_refused_.exchange(true); }});
}

std::string ProgramBackend::compiler_version(const std::string& needle) const {
  std::istringstream in(version_output_);
  std::string line, first;
  while (std::getline(in, line)) {
    if (first.empty()) first = line;
    if (!needle.empty() && line.find(needle) != std::string::npos) return line;
  }
  return first;
}

ProgramBackend::~ProgramBackend() {
  if (benchmark_.valid()) benchmark_.wait();  // it uses this backend's members
}

std::size_t ProgramBackend::parallelism() const {
  if (spec_.jobs) return spec_.jobs;
  return usable_cpus();  // the affinity mask's, not the machine's (a rank bound to one core)
}

fs::path ProgramBackend::eval_directory(const Config& config) const {
  return work_.path() / "evals" / content_hash(spec_.space.label(config)).substr(0, 16);
}

fs::path ProgramBackend::render(const Config& config, const fs::path& directory) const {
  const fs::path path = directory / rendered_name(spec_);
  write_file_if_changed(path,
                        render_template(template_text_, spec_.template_path, spec_.space, config));
  return path;
}

namespace {
// The sources whose text goes into a harness object's name (harness.cuh includes the others).
constexpr const char* kHarnessSources[] = {"harness_separate.cu", "harness_kernels.cu", "harness.cuh",
                                           "harness_common.hpp", "harness_kernels.cuh", "statuses.hpp"};
}  // namespace

ProgramBackend::HarnessBuild ProgramBackend::plan_harness_file(const std::string& file,
                                                               const std::vector<std::string>& extra) const {
  const fs::path source = harness_ / "adaexplore" / file;
  std::error_code ec;
  if (!fs::exists(source, ec)) return {};
  std::vector<std::string> argv = compiler_prefix(spec_.compiler);
  for (const auto& f : toolchain_flags()) argv.push_back(f);
  for (const auto& f : spec_.compiler.flags) argv.push_back(f);
  argv.push_back("-I" + harness_.string());
  for (const auto& d : spec_.compiler.definitions)  // they may change the library's types
    argv.push_back(d.rfind("-D", 0) == 0 ? d : "-D" + d);
  if (!runner_command_.empty())
    for (const auto& f : module_flags()) argv.push_back(f);
  for (const auto& f : extra) argv.push_back(f);
  argv.insert(argv.end(), {"-DADAEXPLORE_HARNESS_SEPARATE=1", "-c", source.string(), "-o"});
  // Named by everything that goes into it: the command, the compiler (its path resolved and its
  // --version: another toolkit behind the same name gets its own object) and the harness's sources.
  std::string key = toolchain_identity_;
  for (const auto& a : argv) key += a + '\n';
  for (const char* name : kHarnessSources)
    if (const fs::path path = harness_ / "adaexplore" / name; fs::exists(path, ec)) key += read_file(path);
  return {argv, harness_cache_directory(spec_.work_dir) / (content_hash(key).substr(0, 16) + ".o")};
}

ProgramBackend::HarnessBuild ProgramBackend::plan_harness_object() const {
  return plan_harness_file("harness_separate.cu", harness_object_flags());
}

ProgramBackend::HarnessBuild ProgramBackend::plan_harness_kernels_object() const {
  return plan_harness_file("harness_kernels.cu", {});
}

fs::path ProgramBackend::build_harness_object(HarnessBuild build, const std::string& without_it) const {
  std::error_code ec;
  const fs::path& object = build.object;
  const fs::path directory = object.parent_path();
  std::vector<std::string>& argv = build.command;
  // Built under a name of its own, then renamed: tunings building the same object at once each
  // finish theirs, and none reads a half-written one. The log keeps the object's name
  // (<hash>.out/.err/.cmd, the last attempt's) and goes when the build succeeds.
  const fs::path partial = object.string() + "." + std::to_string(::getpid()) + "-" +
                           std::to_string(std::hash<std::thread::id>()(std::this_thread::get_id())) + ".partial";
  argv.push_back(partial.string());
  const std::string stem = object.stem().string();
  try {
    const ProcessResult built = run_process(argv, logged_options(directory, stem, spec_.compiler.timeout_s));
    if (built.ok()) fs::rename(partial, object, ec);
    if (built.ok() && !ec) {
      for (const char* suffix : {".out", ".err", ".cmd"}) fs::remove(directory / (stem + suffix), ec);
      return object;
    }
    write_file_if_changed(directory / (stem + ".cmd"), built.command_line() + "\n");
  } catch (const std::exception& e) {
    std::cerr << "[adaexplore] warning: building the harness apart: " << e.what() << "\n";
  }
  fs::remove(partial, ec);
  std::cerr << "[adaexplore] warning: " << build.command[build.command.size() - 3]  // ... -c <source> -o
            << " could not be compiled apart (log: " << (directory / (stem + ".err")).string() << "); " << without_it
            << " (slower compiles, same results)\n";
  return {};
}

fs::path ProgramBackend::harness_object(bool wait) {
  if (!separate_harness() || header_only_harness_) return {};
  std::call_once(harness_started_, [this] {
    HarnessBuild build;
    try {
      build = plan_harness_object();
    } catch (const std::exception& e) {  // an unreadable harness source: header-only
      std::cerr << "[adaexplore] warning: the harness cannot be built apart: " << e.what() << "\n";
    }
    std::error_code ec;
    if (build.object.empty() || fs::exists(build.object, ec)) {  // none, or built by an earlier tuning
      std::promise<fs::path> known;
      known.set_value(build.object);
      harness_object_ = known.get_future().share();
    } else {
      harness_object_ = std::async(std::launch::async, [this, build] {
                          return build_harness_object(build, unit_.kernel
                                                                 ? "the benchmark builds with the harness header-only"
                                                                 : "every configuration builds with the harness header-only");
                        }).share();
    }
    // The kernel unit's benchmark, compiled as plain C++ when it can be, links the harness's
    // kernels built apart: started with the harness object, cached the same way; not built for a
    // benchmark with device code in its own text (compiled with nvcc, which defines them itself).
    HarnessBuild kernels;
    if (unit_.kernel) own_device_code_ = host_only_reason();
    if (unit_.kernel && own_device_code_.empty()) try {
        kernels = plan_harness_kernels_object();
      } catch (const std::exception& e) {
        std::cerr << "[adaexplore] warning: the harness's kernels cannot be built apart: " << e.what() << "\n";
      }
    if (kernels.object.empty() || fs::exists(kernels.object, ec)) {
      std::promise<fs::path> known;
      known.set_value(kernels.object);
      harness_kernels_ = known.get_future().share();
    } else {
      harness_kernels_ = std::async(std::launch::async, [this, kernels] {
                           return build_harness_object(kernels, "the benchmark is compiled with nvcc");
                         }).share();
    }
  });
  if (!wait && harness_object_.wait_for(std::chrono::seconds(0)) != std::future_status::ready) return {};
  if (separate_refused_) return {};
  const fs::path object = harness_object_.get();
  std::error_code ec;
  return !object.empty() && fs::exists(object, ec) ? object : fs::path();  // deleted meanwhile: header-only
}

Prepared ProgramBackend::prepare(const Config& config) {
  Prepared prepared;
  prepared.config = config;
  prepared.directory = fs::absolute(eval_directory(config));
  prepared.executable = prepared.directory / (compiler_ ? compiler_ : cubin_compiler_)->artifact();
  if (unit_.kernel) start_benchmark_build();  // the benchmark, once, while the configurations compile
  fs::create_directories(prepared.directory);
  if (!runner_command_.empty())  // now, so that its CUDA context is made while this compiles
    std::call_once(runner_started_, [this] {
      std::vector<std::string> command = runner_command_;
      for (const auto& a : runner_arguments()) command.push_back(a);
      for (std::size_t slot = 0; slot < measure_slots(); ++slot)
        runners_.push_back(std::make_unique<Runner>(
            command, work_.path() / (slot ? "runner-" + std::to_string(slot) + ".err" : std::string("runner.err")),
            slot_environment(slot)));
    });
  const auto start = std::chrono::steady_clock::now();
  render(config, prepared.directory);
  prepared.stage_ms["render"] = ms_since(start);
  if (auto decided = check_statically(config)) {
    prepared.failure = std::move(decided);
    return prepared;
  }
  if (auto unlaunchable = declared_shape_failure(config)) {
    prepared.failure = std::move(unlaunchable);
    return prepared;
  }
  compile(prepared);
  return prepared;
}

void ProgramBackend::compile(Prepared& prepared) {
  if (!compiler_) {  // the kernel unit: the cubin is the artifact
    cubin_compiler_->compile(prepared);
    return;
  }
  if (!cubin_compiler_) {
    compiler_->compile(prepared);
    return;
  }
  // The whole program beside the cubin its Benchmark::kernel() loads: the cubin first (its
  // verdict and its kernels' resources are the configuration's), then the program.
  Prepared cubin = prepared;
  cubin.executable = prepared.directory / cubin_compiler_->artifact();
  cubin_compiler_->compile(cubin);
  if (cubin.failure) {
    cubin.executable = prepared.executable;
    prepared = std::move(cubin);
    return;
  }
  compiler_->compile(prepared);
  for (const auto& [stage, ms] : cubin.stage_ms) prepared.stage_ms[stage + (stage == "compile" ? ".cubin" : "")] = ms;
  prepared.stage_ms["compile"] += cubin.stage_ms["compile"];
  if (prepared.resources.empty()) prepared.resources = cubin.resources;
  prepared.ptxas_warnings.insert(prepared.ptxas_warnings.end(), cubin.ptxas_warnings.begin(), cubin.ptxas_warnings.end());
}

std::optional<Outcome> ProgramBackend::declared_shape_failure(const Config& config) const {
  std::string problem;
  (void)configuration_arguments(config, {}, "", &problem);
  if (problem.empty()) return std::nullopt;
  Outcome o;
  o.config = config;
  o.label = spec_.space.label(config);
  o.status = Status::launch_error;
  o.message = problem + " (static check before compiling)";
  return o;
}

namespace {
// The first sign of CUDA C++ beyond the runtime API's host functions in `text`, or none (a
// comment naming one counts too: nvcc is never wrong, only slower). `__device__` and the
// symbol copies matter although the plain C++ compile accepts them: a `__device__` variable
// there is a host variable, and a copy to it fails at run time.
const char* device_code_mark(const std::string& text) {
  for (const char* mark : {"__global__", "__device__", "__shared__", "__constant__", "__managed__", "<<<",
                           "__CUDACC__", "__CUDA_ARCH__", "cudaMemcpyToSymbol", "cudaMemcpyFromSymbol",
                           "cudaGetSymbol", "CUDART_VERSION"})
    if (text.find(mark) != std::string::npos) return mark;
  return nullptr;
}
}  // namespace

std::string ProgramBackend::host_only_reason() const {
  std::string text;
  try {
    text = read_file(spec_.benchmark_path);
  } catch (const std::exception& e) {
    return e.what();
  }
  if (const char* mark = device_code_mark(text)) return spec_.benchmark_path.filename().string() + " has " + mark;
  return {};
}

std::vector<fs::path> ProgramBackend::foreign_header_folders() const {
  std::vector<fs::path> folders = system_header_folders(spec_.compiler.path);
  folders.push_back(harness_);
  return folders;
}

std::string ProgramBackend::header_with_device_code(const fs::path& dependency_file) const {
  std::error_code ec;
  const fs::path benchmark = fs::weakly_canonical(spec_.benchmark_path, ec);
  const CompileCache filter(fs::path(), foreign_header_folders());  // its header filter only: nothing stored
  try {
    for (const fs::path& path : filter.listed(dependency_file, dependency_file.parent_path())) {
      if (path == benchmark) continue;
      if (const char* mark = device_code_mark(read_file(path))) return path.filename().string() + " has " + mark;
    }
  } catch (const std::exception& e) {
    return std::string("its headers could not be read (") + e.what() + ")";
  }
  return {};
}

namespace {

// One build of the kernel unit's benchmark, step by step (ProgramBackend::build_benchmark): the
// commands run so far and the last one's result.
struct BenchmarkSteps {
  const Spec& spec;
  fs::path directory;
  std::string depfile;
  fs::path program;
  std::vector<std::string> argv;    // the compile's: toolchain, user flags, includes, definitions, module
  std::vector<std::string> base;    // the link's: compiler, toolchain and user flags
  std::vector<std::string> module;  // a module's flags (-shared -fPIC ...), or none
  ProcessResult built;
  std::string commands;
};

// The cache key of the header-only command `whole` (this folder's path replaced) and the
// benchmark's text.
std::string benchmark_cache_key(const std::string& toolchain, const std::vector<std::string>& whole,
                                const fs::path& directory, const fs::path& benchmark) {
  std::string key = "benchmark\n" + toolchain;
  for (std::string a : whole) {
    for (std::size_t at = a.find(directory.string()); at != std::string::npos; at = a.find(directory.string(), at + 6))
      a.replace(at, directory.string().size(), "<work>");
    key += a + '\n';
  }
  return key + read_file(benchmark);
}

// The linker's own line of a failed link (an undefined launch_gather<T>, ...), not collect2's summary.
std::string link_error_line(const ProcessResult& built) {
  const std::string text = built.err + built.out;
  std::string line = first_error_line(text);
  if (const std::size_t at = text.find("undefined reference"); at != std::string::npos) {
    const std::size_t end = text.find('\n', at);
    line = text.substr(at, std::min<std::size_t>(end == std::string::npos ? text.size() - at : end - at, 300));
  }
  return line;
}

// As plain C++ first when the benchmark has no device code of its own: the host compiler alone,
// against the harness object and the harness's kernels built apart. A __global__, __shared__,
// __constant__ or __managed__ in a header it includes is a compile error here (defined to an
// unknown name: the toolkit's headers define them only when nvcc has not), as is a <<<>>> launch;
// the headers it included (its dependency file, outside the toolkit, the system and the harness)
// are then read for the rest (__device__, __CUDACC__, a symbol copy: header_with_device_code).
// Any of these, or a failed link (an element type harness_kernels.cu does not instantiate), and
// the benchmark is compiled with nvcc (false, the reason in b.commands).
bool build_as_cxx(BenchmarkSteps& b, const std::vector<std::string>& cxx, const std::function<fs::path()>& harness_object,
                  const std::function<fs::path()>& kernels_object,
                  const std::function<std::string(const std::string&)>& header_with_device_code) {
  std::error_code ec;
  const std::string object = (b.directory / "benchmark.o").string();
  std::vector<std::string> part = b.argv;
  for (const auto& f : cxx) part.push_back(f);
  for (const char* keyword : {"__global__", "__shared__", "__constant__", "__managed__"})
    part.push_back("-D" + std::string(keyword) + "=adaexplore_device_code_in_a_benchmark_compiled_as_plain_cxx");
  part.insert(part.end(), {"-DADAEXPLORE_HARNESS_SEPARATE=1", "-MD", "-MF", b.depfile, "-c",
                           b.spec.benchmark_path.string(), "-o", object});
  const ProcessResult compiled = run_process(part, logged_options(b.directory, "compile-cxx", b.spec.compiler.timeout_s));
  b.commands += compiled.command_line() + "\n";
  const std::string in_header = compiled.ok() ? header_with_device_code(b.depfile) : std::string();
  fs::path harness = harness_object();
  fs::path kernels = kernels_object();
  if (!harness.empty() && !fs::exists(harness, ec)) harness.clear();
  if (!kernels.empty() && !fs::exists(kernels, ec)) kernels.clear();
  std::string why = !compiled.ok() ? "it does not compile as C++ (" + first_error_line(compiled.err + compiled.out) +
                                         "; log: compile-cxx.err)"
                    : !in_header.empty() ? in_header
                    : harness.empty() ? "no harness object"
                    : kernels.empty() ? "no object of the harness's kernels"
                                      : "";
  bool done = false;
  if (why.empty()) {
    std::vector<std::string> link = b.base;
    for (const auto& f : b.module) link.push_back(f);
    link.insert(link.end(), {object, harness.string(), kernels.string(), "-o", b.program.string()});
    b.built = run_process(link, logged_options(b.directory, "link-cxx", b.spec.compiler.timeout_s));
    b.commands += b.built.command_line() + "\n";
    done = b.built.ok() && fs::exists(b.program, ec);
    if (!done) why = "its link failed (" + link_error_line(b.built) + "; log: link-cxx.err)";
  }
  fs::remove(object, ec);
  if (!done) b.commands += "# as plain C++: " + why + "; with nvcc:\n";
  return done;
}

// With nvcc, the benchmark's own code to an object (-c, ADAEXPLORE_HARNESS_SEPARATE) while the
// harness object builds, then one link; false, saying why in b.commands, when either part fails.
bool build_apart(BenchmarkSteps& b, const std::function<fs::path()>& harness_object) {
  std::error_code ec;
  const std::string object = (b.directory / "benchmark.o").string();
  std::vector<std::string> part = b.argv;
  part.insert(part.end(), {"-DADAEXPLORE_HARNESS_SEPARATE=1", "-MD", "-MF", b.depfile, "-c",
                           b.spec.benchmark_path.string(), "-o", object});
  const ProcessResult compiled = run_process(part, logged_options(b.directory, "compile", b.spec.compiler.timeout_s));
  b.commands += compiled.command_line() + "\n";
  // The harness object's build ran meanwhile (started with this build, in the caller's thread:
  // no virtual call here).
  fs::path harness = harness_object();
  if (!harness.empty() && !fs::exists(harness, ec)) harness.clear();
  bool done = false;
  if (compiled.ok() && !harness.empty()) {
    std::vector<std::string> link = b.base;
    for (const auto& f : b.module) link.push_back(f);
    link.insert(link.end(), {object, harness.string(), "-o", b.program.string()});
    b.built = run_process(link, logged_options(b.directory, "link", b.spec.compiler.timeout_s));
    b.commands += b.built.command_line() + "\n";
    done = b.built.ok() && fs::exists(b.program, ec);
  }
  fs::remove(object, ec);
  if (!done)
    b.commands += "# built apart: " + std::string(!compiled.ok() ? "the benchmark's object failed"
                                                  : harness.empty() ? "no harness object"
                                                                    : "the link failed") +
                  "; header-only:\n";
  return done;
}

// Why the kernel unit's benchmark did not compile, with its log and command.
std::string benchmark_error(const BenchmarkSteps& b) {
  const ProcessResult& built = b.built;
  const std::string why = built.timed_out ? "the compiler exceeded its time limit of " + seconds(b.spec.compiler.timeout_s)
                          : built.failed_to_start ? "the compiler could not be started: " + built.error
                                                  : first_error_line(built.err + built.out);
  return b.spec.benchmark_path.string() + " does not compile (the kernel unit's benchmark, compiled once, without the "
         "rendered template): " + why + "\n  log: " + (b.directory / "compile.err").string() +
         "\n  command: " + (b.directory / "compile.cmd").string() +
         "\n  a benchmark that includes the rendered template compiles whole per configuration: compiler.unit "
         "\"program\" (COMPILE_UNIT PROGRAM)";
}

}  // namespace

// The benchmark of the kernel unit, compiled once: as the whole program's compile but without
// the rendered template (no evaluation folder on the include path, no parameter macros: its host
// code is the same for every configuration). As plain C++ first when it can be (build_as_cxx),
// else with nvcc. With the harness built apart, in two parts at once (build_apart); header-only,
// one command, when the harness is not built apart or either part fails.
ProgramBackend::BenchmarkBuild ProgramBackend::build_benchmark(std::vector<std::string> argv,
                                                               const std::vector<std::string>& module, bool separate,
                                                               const std::vector<std::string>& cxx,
                                                               const std::string& host_only_why) {
  BenchmarkBuild build;
  const auto start = std::chrono::steady_clock::now();
  const fs::path directory = fs::absolute(work_.path() / "benchmark");
  std::error_code ec;
  fs::create_directories(directory, ec);
  BenchmarkSteps b{spec_, directory, (directory / "benchmark.d").string(), {}, {}, argv, module, {}, {}};
  std::vector<std::string> includes = include_flags(spec_, directory, harness_);
  includes.erase(includes.begin());  // the benchmark's own folder is not an evaluation's
  for (const auto& f : includes) argv.push_back(f);
  for (const auto& d : spec_.compiler.definitions) argv.push_back(d.rfind("-D", 0) == 0 ? d : "-D" + d);
  argv.push_back("-DADAEXPLORE_KERNEL_UNIT=1");
  for (const auto& f : module) argv.push_back(f);
  b.argv = argv;
  build.program = b.program = directory / (runner_command_.empty() ? "benchmark" : "benchmark.so");
  // header-only, whole: ... -MD -MF benchmark.d bench.cu -o benchmark.so
  std::vector<std::string> whole = argv;
  whole.insert(whole.end(), {"-MD", "-MF", b.depfile, spec_.benchmark_path.string(), "-o", build.program.string()});
  // From the compile cache when an earlier tuning built the same (compiler, the header-only command
  // with this folder's path replaced, benchmark text, and the headers it included unchanged),
  // whichever way it was built.
  const std::string key = benchmark_cache_key(toolchain_identity_, whole, directory, spec_.benchmark_path);
  if (cache_ && cache_->find(key, build.program)) {
    ProcessResult served;
    served.argv = whole;
    write_file_if_changed(directory / "compile.cmd",
                          served.command_line() + "\n# served from " + cache_->directory().string() + "\n");
    build.ms = ms_since(start);
    build.cached = true;
    return build;
  }
  const auto harness = [this] { return separate_refused_ ? fs::path() : harness_object_.get(); };
  bool done = false;
  if (host_only_why.empty())
    done = build_as_cxx(b, cxx, harness, [this] { return harness_kernels_.get(); },
                        [this](const std::string& depfile) { return header_with_device_code(depfile); });
  else
    b.commands += "# with nvcc, not as plain C++: " + host_only_why + "\n";
  if (!done && separate && harness_object_.valid()) done = build_apart(b, harness);
  if (!done) {
    b.built = run_process(whole, logged_options(directory, "compile", spec_.compiler.timeout_s));
    b.commands += b.built.command_line() + "\n";
  }
  write_file_if_changed(directory / "compile.cmd", b.commands);
  build.ms = ms_since(start);
  if (b.built.ok() && cache_ && fs::exists(build.program, ec))
    cache_->store(key, build.program, b.depfile, directory, b.built.out, b.built.err);
  if (b.built.ok() && fs::exists(build.program, ec)) return build;
  build.error = benchmark_error(b);
  build.program.clear();
  return build;
}

// The command is made here, in the caller's thread (the backend's virtual functions cannot be
// called from the build's thread: it may still run while a derived backend is destroyed).
void ProgramBackend::start_benchmark_build() {
  std::call_once(benchmark_started_, [this] {
    (void)harness_object();  // its build started
    std::vector<std::string> base = compiler_prefix(spec_.compiler);
    for (const auto& f : toolchain_flags()) base.push_back(f);
    for (const auto& f : spec_.compiler.flags) base.push_back(f);
    std::vector<std::string> module;
    if (!runner_command_.empty()) module = module_flags();
    const bool separate = separate_harness();
    const std::vector<std::string> cxx = harness_object_flags();
    // Why not as plain C++, if so (empty: tried). An object already known to be missing (its
    // source absent, its plan failed) is not waited for: no plain C++ compile that could not be
    // linked. harness_object() above judged the benchmark's own text (own_device_code_).
    const auto known_missing = [](const std::shared_future<fs::path>& f) {
      return f.wait_for(std::chrono::seconds(0)) == std::future_status::ready && f.get().empty();
    };
    const std::string host_only_why = [&]() -> std::string {
      if (!separate || !harness_kernels_.valid()) return "the harness is not built apart";
      if (cxx.empty()) return "this backend has no plain C++ compile";
      if (!own_device_code_.empty()) return own_device_code_;
      if (known_missing(harness_kernels_)) return "no object of the harness's kernels";
      if (known_missing(harness_object_)) return "no harness object";
      return {};
    }();
    benchmark_ = std::async(std::launch::async, [this, base, module, separate, cxx, host_only_why] {
      return build_benchmark(base, module, separate, cxx, host_only_why);
    }).share();
  });
}

const ProgramBackend::BenchmarkBuild& ProgramBackend::benchmark_build() {
  start_benchmark_build();
  return benchmark_.get();
}

std::vector<std::string> ProgramBackend::configuration_arguments(const Config& config, const fs::path& cubin,
                                                                 const std::string& prefix, std::string* problem) const {
  const std::string option = "--adaexplore-" + prefix;
  std::vector<std::string> argv;
  if (!cubin.empty()) argv.insert(argv.end(), {option + "kernel", cubin.string()});
  for (std::size_t i = 0; i < spec_.space.dimension(); ++i)
    argv.insert(argv.end(), {option + "param", spec_.space.parameters()[i].name + "=" + spec_.space.value(config, i).text});
  const std::vector<long long>* size = spec_.size ? &spec_.size->values : nullptr;
  auto whole = [&](const Expr& e, double minimum, const std::string& what) -> long long {
    if (const auto v = whole_value(e, spec_.space, config, size, minimum)) return *v;
    if (problem && problem->empty()) {
      const ExprValue got = e.evaluate([&](std::size_t i) { return launch_variable(spec_.space, config, size, i); });
      *problem = what + " \"" + e.text() + "\" gives " + Value::from_number(got.number).text + " for " +
                 spec_.space.label(config) + (size ? " at " + spec_.sizes.label(*spec_.size) : std::string()) +
                 "; it must be a whole number >= " + Value::from_number(minimum).text;
    }
    return static_cast<long long>(minimum);
  };
  for (const ArgumentSpec& a : spec_.arguments) {
    std::string value;
    if (a.value) {
      const ExprValue v = a.value->evaluate([&](std::size_t i) { return launch_variable(spec_.space, config, size, i); });
      value = Value::from_number(v.number).text;
    } else {
      value = std::to_string(whole(*a.length, 0, "the length of argument " + a.name));
    }
    argv.insert(argv.end(), {option + "value", a.name + "=" + value});
  }
  auto dims = [&](const std::vector<Expr>& exprs, const char* what) {
    std::string text;
    for (std::size_t d = 0; d < exprs.size(); ++d)
      text += (d ? "," : "") + std::to_string(whole(exprs[d], 1, std::string(what) + "[" + std::to_string(d) + "]"));
    return text;
  };
  if (!spec_.launch.block.empty()) argv.insert(argv.end(), {option + "block", dims(spec_.launch.block, "launch.block")});
  if (!spec_.launch.grid.empty()) argv.insert(argv.end(), {option + "grid", dims(spec_.launch.grid, "launch.grid")});
  if (spec_.launch.dynamic_shared_bytes && !spec_.launch.block.empty())
    argv.insert(argv.end(), {option + "shared", std::to_string(whole(*spec_.launch.dynamic_shared_bytes, 0,
                                                                          "launch.dynamic_shared_bytes"))});
  return argv;
}

std::vector<std::string> ProgramBackend::run_arguments(const fs::path& record, const Prepared& prepared,
                                                       const fs::path& cubin, const fs::path& reference) const {
  std::vector<std::string> argv = {"--adaexplore-result", record.string(), "--adaexplore-seed",
                                   std::to_string(spec_.seed)};
  const std::vector<std::string> own = configuration_arguments(prepared.config, cubin, "", nullptr);
  argv.insert(argv.end(), own.begin(), own.end());
  if (!spec_.kernel.empty()) argv.insert(argv.end(), {"--adaexplore-kernel-name", spec_.kernel});
  const std::vector<long long>* size = spec_.size ? &spec_.size->values : nullptr;
  if (spec_.tolerance.rel || spec_.tolerance.abs) {
    const Tolerances t = tolerances(size);
    argv.insert(argv.end(), {"--adaexplore-tolerance", t.rel + "," + t.abs});
  }
  if (!reference.empty()) {
    const std::vector<std::string> ref = configuration_arguments(spec_.reference.config, reference, "reference-", nullptr);
    argv.insert(argv.end(), ref.begin(), ref.end());
  }
  if (spec_.size) {
    const std::vector<std::string> sizes = spec_.sizes.arguments(*spec_.size);
    argv.insert(argv.end(), sizes.begin(), sizes.end());
  }
  argv.insert(argv.end(), spec_.run_args.begin(), spec_.run_args.end());
  return argv;
}

ProgramBackend::Tolerances ProgramBackend::tolerances(const std::vector<long long>* size) const {
  auto text = [&](const std::optional<Expr>& e, double fallback) {
    if (!e) return Value::from_number(fallback).text;
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%.17g",
                  e->evaluate([&](std::size_t i) { return launch_variable(spec_.space, spec_.defaults, size, i); }).number);
    return std::string(buffer);
  };
  return {text(spec_.tolerance.rel, 1e-5), text(spec_.tolerance.abs, 1e-6)};  // harness_common.hpp Tolerance{}
}

const fs::path& ProgramBackend::reference_cubin() {
  std::call_once(reference_built_, [this] {
    if (!spec_.reference.given) return;
    if (!cubin_compiler_) {
      reference_error_ = spec_.file.string() + ": reference: a reference configuration's outputs come from its cubin, "
                         "and this benchmark is compiled whole with the rendered template (it includes " +
                         rendered_name(spec_) + "): launch through Benchmark::kernel() instead, or compute the "
                         "reference in the benchmark";
      return;
    }
    Prepared ref;
    ref.config = spec_.reference.config;
    ref.directory = fs::absolute(work_.path() / "reference");  // this tuning's own work folder (concurrent tunings)
    fs::create_directories(ref.directory);
    ref.executable = ref.directory / cubin_compiler_->artifact();
    render(ref.config, ref.directory);
    cubin_compiler_->compile(ref);
    if (ref.failure)
      reference_error_ = "the reference configuration " + spec_.space.label(ref.config) + " (" + spec_.reference.source +
                         ") does not compile: " + to_string(ref.failure->status) + ": " +
                         ref.failure->message.substr(0, ref.failure->message.find('\n')) + " (log: " +
                         (ref.directory / "compile.err").string() + ")";
    else
      reference_ = ref.executable;
  });
  if (!reference_error_.empty()) throw SetupError(reference_error_);
  return reference_;
}

ProgramBackend::Invocation ProgramBackend::invocation(const Prepared& prepared, const fs::path& record) {
  const fs::path cubin = unit_.cubin ? prepared.directory / cubin_compiler_->artifact() : fs::path();
  Invocation invoked{prepared.executable, run_arguments(record, prepared, cubin, reference_cubin())};
  if (unit_.kernel) {  // the benchmark built once, given this configuration's cubin
    const auto wait_start = std::chrono::steady_clock::now();
    const BenchmarkBuild& build = benchmark_build();
    invoked.waited_ms = ms_since(wait_start);
    if (!build.error.empty()) throw SetupError(build.error);  // no configuration can run
    invoked.program = build.program;
  }
  return invoked;
}

Outcome ProgramBackend::measure(Prepared& prepared) { return measure_on(prepared, 0); }

Outcome ProgramBackend::measure_on(Prepared& prepared, std::size_t slot) {
  const fs::path record = prepared.directory / "result.json";
  std::error_code ec;
  fs::remove(record, ec);  // a record from an earlier tuning must not answer for this run
  ProcessResult run;
  std::optional<double> load_ms;
  std::string load_error;
  double start_ms = 0;
  const Invocation invoked = invocation(prepared, record);
  const fs::path& program = invoked.program;
  const std::vector<std::string>& arguments = invoked.arguments;
  const double waited_ms = invoked.waited_ms;
  if (slot < runners_.size()) {
    RunnerRequest request{program, arguments, prepared.directory, prepared.directory / "run.out",
                          prepared.directory / "run.err"};
    request.keep = unit_.kernel;
    const RunnerReply reply = runners_[slot]->run(request, run_limit_.seconds);
    run = reply.process;
    load_ms = reply.load_ms;
    load_error = reply.load_error;
    start_ms = reply.start_ms;
  } else {
    std::vector<std::string> argv = {program.string()};
    for (const auto& a : arguments) argv.push_back(a);
    ProcessOptions options = logged_options(prepared.directory, "run", run_limit_.seconds);
    options.environment = slot_environment(slot);
    run = run_process(argv, options);
  }
  Outcome outcome = run_outcome(prepared, run, record, run_limit_.seconds, load_error);
  if (load_ms) outcome.stage_ms["load"] = *load_ms;
  if (waited_ms > 1) outcome.stage_ms["benchmark_wait"] = waited_ms;  // the first: its build still running
  if (start_ms > 0) outcome.stage_ms["runner_start"] = start_ms;
  if (const auto where = slot_device(slot); !where.is_null()) outcome.extra["device"] = where;
  if (outcome.status == Status::timeout) {  // the first line stays the signature of the failure
    const std::size_t end = std::min(outcome.message.find('\n'), outcome.message.size());
    outcome.message.insert(end, "\n  limit: " + run_limit_.derivation);
  }
  return outcome;
}

Outcome ProgramBackend::run_outcome(Prepared& prepared, const ProcessResult& run, const fs::path& record,
                                    double limit_s, const std::string& load_error) {
  // A module dlopen cannot load (an unresolved symbol, a main without (argc, argv)) is a build
  // problem: compile_error with the loader's message first.
  Outcome outcome = load_error.empty()
                        ? benchmark_outcome(run, record, limit_s)
                        : process_failure(Status::compile_error, "the benchmark module could not be loaded: " + load_error, run);
  outcome.stage_ms["run"] = run.wall_ms;
  annotate(outcome, prepared);
  if (!prepared.keep_artifact) discard(prepared);
  return outcome;
}

ProgramBackend::WrappedRun ProgramBackend::run_wrapped(Prepared& prepared, const std::vector<std::string>& prefix,
                                                       double timeout_s) {
  const fs::path& directory = prepared.directory;
  // Files of their own (profile.*), beside the tuning's run.out, run.err and result.json, which
  // stay the evidence of the measurement.
  const fs::path record = directory / "profile.result.json";
  std::error_code ec;
  fs::remove(record, ec);  // an earlier wrapped run's record must not answer for this one
  const Invocation invoked = invocation(prepared, record);
  WrappedRun wrapped;
  std::vector<std::string> argv = prefix;
  ProcessResult benchmark;  // the benchmark's part, as measure() would see it
  std::string load_error;
  if (!runner_command_.empty()) {
    RunnerRequest request{invoked.program, invoked.arguments, directory, directory / "profile.run.out",
                          directory / "profile.run.err"};
    request.keep = unit_.kernel;
    const fs::path request_file = directory / "profile.request.json";
    write_file_if_changed(request_file, runner_request_line(request) + "\n");
    argv.insert(argv.end(), runner_command_.begin(), runner_command_.end());
    for (const auto& a : runner_arguments()) argv.push_back(a);
    ProcessOptions options = logged_options(directory, "profile.runner", timeout_s);
    options.stdin_file = request_file;
    options.environment = slot_environment(0);
    wrapped.process = run_process(argv, options);
    // The runner's stdout: {"ready": true}, then its reply (other lines, a wrapper's, are skipped).
    RunnerReply reply;
    bool answered = false;
    std::istringstream lines(read_captured(directory / "profile.runner.out"));
    for (std::string line; !answered && std::getline(lines, line);) {
      if (line.empty() || line.front() != '{') continue;
      try {
        read_runner_reply(line, reply);
        answered = true;
      } catch (const std::exception&) {
      }
    }
    benchmark.argv = {invoked.program.string()};
    benchmark.argv.insert(benchmark.argv.end(), invoked.arguments.begin(), invoked.arguments.end());
    if (answered) {
      benchmark.exit_code = reply.process.exit_code;
      load_error = reply.load_error;
    } else {  // no reply: the runner (or the wrapper) ended first
      benchmark.exit_code = wrapped.process.exit_code;
      benchmark.signal = wrapped.process.signal;
      benchmark.timed_out = wrapped.process.timed_out;
      benchmark.failed_to_start = wrapped.process.failed_to_start;
      benchmark.error = wrapped.process.error;
    }
    benchmark.wall_ms = wrapped.process.wall_ms;
    benchmark.out = read_captured(request.stdout_file);
    benchmark.err = read_captured(request.stderr_file);
    if (!answered) benchmark.err = wrapped.process.err + benchmark.err;
  } else {
    argv.push_back(invoked.program.string());
    argv.insert(argv.end(), invoked.arguments.begin(), invoked.arguments.end());
    ProcessOptions options = logged_options(directory, "profile.run", timeout_s);
    options.environment = slot_environment(0);
    wrapped.process = run_process(argv, options);
    benchmark = wrapped.process;
  }
  wrapped.outcome = run_outcome(prepared, benchmark, record, timeout_s, load_error);
  return wrapped;
}

std::vector<std::string> ProgramBackend::scan_command(const fs::path& source, const fs::path& directory,
                                                      bool benchmark) const {
  std::vector<std::string> argv = {spec_.compiler.path};  // no launcher: a scan is not a build
  for (const auto& f : toolchain_flags()) argv.push_back(f);
  for (const auto& f : spec_.compiler.flags) argv.push_back(f);
  for (const auto& f : include_flags(spec_, directory, harness_)) argv.push_back(f);
  for (const auto& f : definition_flags(spec_, spec_.defaults)) argv.push_back(f);
  if (!runner_command_.empty())
    for (const auto& f : module_flags())
      if (f.rfind("-D", 0) == 0) argv.push_back(f);
  if (benchmark && unit_.kernel) argv.push_back("-DADAEXPLORE_KERNEL_UNIT=1");
  const std::string stem = source.stem().string();
  argv.insert(argv.end(), {"-M", "-MF", (directory / (stem + ".d")).string(), source.string()});
  return argv;
}

nlohmann::json ProgramBackend::included_headers(const std::vector<fs::path>& outputs) {
  const fs::path directory = fs::absolute(work_.path() / "dependencies");
  fs::create_directories(directory);
  render(spec_.defaults, directory);
  const fs::path unit = directory / ("template" + spec_.benchmark_path.extension().string());
  write_file_if_changed(unit, kernel_unit_source(rendered_name(spec_)));
  const std::vector<std::vector<std::string>> commands = {scan_command(unit, directory, false),
                                                          scan_command(spec_.benchmark_path, directory, true)};
  const fs::path found = directory / "dependencies.d";  // both scans' headers, one rule
  std::error_code ec;
  const fs::path compiler = fs::weakly_canonical(find_program(spec_.compiler.path), ec);
  // Left out: the toolkit's and the system's headers (system_header_folders), the harness's, and
  // the outputs.
  std::vector<fs::path> ignored = foreign_header_folders();
  ignored.insert(ignored.end(), outputs.begin(), outputs.end());
  CompileCache cache(harness_cache_directory(spec_.work_dir).parent_path() / "dependencies", ignored);
  std::string key = "dependencies (external headers only)\n" + compiler.string() + '\n' + version_output_ + '\n';
  for (const auto& o : outputs) key += "left out: " + o.string() + '\n';  // the stored rule is filtered by them
  for (const auto& command : commands) {
    for (std::string a : command) {
      for (std::size_t at = a.find(directory.string()); at != std::string::npos; at = a.find(directory.string(), at + 6))
        a.replace(at, directory.string().size(), "<scan>");
      key += a + '\n';
    }
  }
  key += read_file(directory / rendered_name(spec_)) + '\n' + read_file(spec_.benchmark_path);
  if (!cache.find(key, found)) {
    std::string rule = "dependencies:";
    for (const auto& command : commands) {
      const ProcessResult scan = run_process(command, logged_options(directory, "scan", spec_.compiler.timeout_s));
      if (!scan.ok()) {
        // Not a key of its own (a scan that fails once, under load or before a generated header
        // exists, would set the results aside, and the next good scan again): the last good
        // scan's headers when there is one, else none.
        write_file_if_changed(directory / "scan.cmd", scan.command_line() + "\n");
        const bool earlier = fs::exists(found, ec);
        std::cerr << "[adaexplore] warning: " << spec_.name << ": the compiler could not list the headers that "
                  << command.back() << " includes (" << first_error_line(scan.err + scan.out) << "; log "
                  << (directory / "scan.err").string() << "); the results' key covers "
                  << (earlier ? "the headers of the last scan that worked" : "the template and the benchmark only")
                  << "\n";
        if (!earlier) return nlohmann::json::array();
        rule.clear();
        break;
      }
      const std::string stem = fs::path(command.back()).stem().string();
      // Resolved as the cache resolves them (relative paths in `directory`, where the compiler
      // ran), without the files of `directory` (the rendered template: the cache's key has its
      // text, and another build tree finding this entry has its own) and the ignored ones.
      for (const auto& h : cache.headers(directory / (stem + ".d"), directory)) {
        std::string escaped;
        for (char c : h.path.string()) escaped += c == ' ' ? std::string("\\ ") : std::string(1, c);
        rule += " " + escaped;
      }
    }
    if (!rule.empty()) {
      write_file_if_changed(found, rule + "\n");
      cache.store(key, found, found, directory, "", "");
    }
  }
  const fs::path benchmark = fs::weakly_canonical(spec_.benchmark_path, ec);
  std::vector<std::pair<std::string, std::string>> named;  // (file name, hash), each header once
  std::string paths;
  std::vector<fs::path> seen;
  for (const auto& h : cache.headers(found, directory)) {
    if (h.path == benchmark || std::find(seen.begin(), seen.end(), h.path) != seen.end()) continue;
    seen.push_back(h.path);
    named.emplace_back(h.path.filename().string(), h.hash);
    paths += h.path.string() + "\n";
  }
  write_file_if_changed(spec_.work_dir / "dependencies.txt", paths);
  std::sort(named.begin(), named.end());
  nlohmann::json out = nlohmann::json::array();
  for (const auto& [name, hash] : named) out.push_back({{"name", name}, {"hash", hash}});
  return out;
}

void ProgramBackend::calibrate(const Outcome& baseline) {
  const auto run = baseline.stage_ms.find("run");
  if (!is_success(baseline.status) || run == baseline.stage_ms.end()) return;
  run_limit_ = derive_run_limit(spec_.run_timeout_s, spec_.run_timeout_factor,
                                spec_.run_timeout_floor_s, run->second / 1000.0);
}

}  // namespace adaexplore
