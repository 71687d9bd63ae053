// `check`: what can be checked of a spec without a GPU (or without tuning): the spec itself (its
// parameters, constraints, defaults and launch expressions: load_spec), the template against the
// parameters (unknown placeholders, unused parameters: check_template), a given configuration (a
// pinned header's values) against the space, the constraints and the target's launch limits, and
// the defaults (and that configuration) rendered and compiled once per target architecture, as a
// tuning compiles them (compiler.unit; the kernel unit's benchmark too), with the ptxas report.
// Nothing is run. The messages are those of a tuning: the same spec and template errors, the
// compiler's first error line and the log's path.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <future>
#include <iostream>
#include <limits>
#include <memory>
#include <sstream>

#include "evaluate/backends.hpp"
#include "cli/commands.hpp"
#include "util/process.hpp"
#include "evaluate/program_backend.hpp"
#include "evaluate/render.hpp"
#include "evaluate/resource_check.hpp"
#include "model/backend_kind.hpp"
#include "model/spec.hpp"
#include "util/files.hpp"

namespace adaexplore {
namespace {

// kExitConfigRejected (4, commands.hpp): the spec, template and defaults pass but the --config
// configuration does not (the caller falls back to the defaults, or fails where that configuration
// is required).

struct CheckArgs {
  std::string spec, config, config_from = "--config";
  std::vector<std::string> archs;
  bool compile = true;
  std::size_t jobs = 0;  // compiles at once; 0: the spec's jobs, else the CPUs this process may run on
};

std::string resources_text(const std::vector<KernelResources>& resources) {
  if (resources.empty()) return "no ptxas report";
  std::string text;
  for (const auto& r : resources) {
    std::ostringstream s;
    s << (text.empty() ? "" : "; ") << (r.demangled.empty() ? r.kernel : r.demangled) << ": " << r.registers
      << " registers, " << r.shared_bytes << " B shared, " << r.stack_bytes << " B stack";
    if (r.spill_store_bytes || r.spill_load_bytes)
      s << ", spills " << r.spill_store_bytes << " B stores / " << r.spill_load_bytes << " B loads";
    else
      s << ", no spills";
    text += s.str();
  }
  return text;
}

// "A=1,B=2" -> the configuration; std::invalid_argument / std::runtime_error naming what is wrong.
Config parse_assignment(const Space& space, const std::string& label) {
  std::vector<std::pair<std::string, std::string>> texts;
  std::istringstream in(label);
  std::string item;
  while (std::getline(in, item, ',')) {
    const auto eq = item.find('=');
    if (eq == std::string::npos) throw std::invalid_argument("\"" + item + "\" is not NAME=VALUE");
    texts.emplace_back(item.substr(0, eq), item.substr(eq + 1));
  }
  return space.config_from_texts(texts);
}

struct Failure {
  int code = kExitOk;
  std::string message;
};

// Renders and compiles `config` for the backend's architecture; the verdict (compile error,
// resource limit from the launch expressions or the ptxas report) or the ptxas report.
Failure compile_one(Backend& backend, const Spec& spec, const Config& config, const std::string& what,
                    const std::string& where, int code, std::string& report) {
  Prepared prepared = backend.prepare(config);
  const std::string label = spec.space.label(config);
  if (prepared.failure) {
    std::string message = what + " " + label + " " + where + ": " + to_string(prepared.failure->status) + ": " +
                          prepared.failure->message;
    std::error_code ec;
    if (std::filesystem::exists(prepared.directory / "compile.err", ec))
      message += "\n  log: " + (prepared.directory / "compile.err").string() +
                 "\n  command: " + (prepared.directory / "compile.cmd").string();
    return {code, message};
  }
  char ms[32];
  std::snprintf(ms, sizeof ms, "%.1f s", prepared.stage_ms["compile"] / 1000);
  report = what + " " + label + " compiled " + where + " in " + ms + (prepared.compile_cached ? " (cached)" : "") +
           ": " + resources_text(prepared.resources);
  std::error_code ec;
  if (!prepared.executable.empty()) std::filesystem::remove(prepared.executable, ec);
  return {};
}

// --no-compile: the launch limits checked without compiling (a compile checks them with the ptxas
// report too): the spec's launch expressions for the defaults and --config against each target
// architecture's limits (--arch, else compiler.arch; neither: what holds on every CUDA GPU, 1024
// threads per block and 48 KiB of shared memory without the opt-in). What was checked goes into
// `checked`; a configuration over a limit is the failure the compile would report.
std::optional<Failure> check_launch_limits(const CheckArgs& a, const Spec& spec, const std::optional<Config>& config,
                                           std::vector<std::string>& checked) {
  if (!backend_kind(spec.backend).launches_kernels) return std::nullopt;
  if (!spec.launch.threads_per_block && !spec.launch.dynamic_shared_bytes) {
    checked.push_back("launch limits not checked: the spec has no launch expressions (THREADS_PER_BLOCK, "
                      "DYNAMIC_SHARED_BYTES; a compile checks the kernels' own figures)");
    return std::nullopt;
  }
  std::vector<std::string> targets = a.archs;
  if (targets.empty() && !spec.compiler.arch.empty()) targets = {spec.compiler.arch};
  if (targets.empty()) targets = {""};
  for (const std::string& arch : targets) {
    DeviceLimits limits;
    std::string where = "every CUDA GPU's limits";
    if (!arch.empty()) {
      const auto known = limits_for_compute_capability(arch);
      if (known) limits = *known;
      where = known ? arch + "'s limits" : arch + " (unknown: every CUDA GPU's limits)";
    }
    if (arch.empty() || !limits_for_compute_capability(arch))
      limits.shared_per_block_optin = std::numeric_limits<long>::max();  // the opt-in's limit is the device's
    const std::string label = arch.empty() ? "every CUDA GPU" : arch;
    if (auto v = launch_verdict(spec.launch, spec.space, spec.defaults, limits, label))
      return Failure{kExitTuningFailed, "the defaults " + v->label + " for " + label + ": " + to_string(v->status) +
                                            ": " + v->message};
    if (config)
      if (auto v = launch_verdict(spec.launch, spec.space, *config, limits, label))
        return Failure{kExitConfigRejected, a.config_from + " " + v->label + " for " + label + ": " +
                                                to_string(v->status) + ": " + v->message};
    checked.push_back(std::string("the defaults") + (config ? " and " + a.config_from : "") +
                      " within the launch limits (" + where + ", from the spec's launch expressions)");
  }
  return std::nullopt;
}

// --config parsed into `config`, checked against the space and its constraints; the exit code
// when it is rejected (having said why), else none.
std::optional<int> check_config(const CheckArgs& a, const Spec& spec, const std::string& me,
                                std::optional<Config>& config, std::vector<std::string>& checked) {
  if (a.config.empty()) return std::nullopt;
  try {
    config = parse_assignment(spec.space, a.config);
  } catch (const std::exception& e) {
    std::cerr << me << a.config_from << " (" << a.config << "): " << e.what() << "; the values must be among "
              << "those of the spec's parameters (" << spec.file.string() << ")\n";
    return kExitConfigRejected;
  }
  if (const Expr* violated = spec.space.first_violated(*config)) {
    std::cerr << me << a.config_from << ": " << spec.space.label(*config) << " violates the constraint \""
              << violated->text() << "\"\n";
    return kExitConfigRejected;
  }
  checked.push_back(a.config_from + " " + spec.space.label(*config) + " in the space" +
                    (spec.space.constraints().empty() ? "" : " and within the constraints"));
  return std::nullopt;
}

// The architectures to compile for ("" once: a backend without a GPU), none when nothing can be
// compiled (saying why in `checked`).
std::vector<std::string> compile_targets(const CheckArgs& a, const Spec& spec, std::vector<std::string>& checked) {
  const bool gpu = backend_kind(spec.backend).needs_gpu;
  std::vector<std::string> targets = a.archs;
  if (gpu && targets.empty() && !spec.compiler.arch.empty()) targets = {spec.compiler.arch};
  if (!gpu) targets = {""};
  if (targets.empty())
    checked.push_back("nothing compiled: no architecture to compile for (--arch, the spec's compiler.arch)");
  if (!targets.empty() && find_program(spec.compiler.path).empty()) {  // a machine without the toolkit
    checked.push_back("nothing compiled: the compiler '" + spec.compiler.path + "' is not found (" +
                      spec.file.string() + ": compiler.path; a name without '/' is looked up in PATH)");
    targets.clear();
  }
  return targets;
}

// One compile of `check`: a configuration on one architecture's backend, and what came of it.
struct CheckJob {
  Backend* backend;
  ProgramBackend* program;
  const Spec* spec;
  Config config;
  std::string what, where;
  int code;
  std::pair<Failure, std::string> result{};
  std::exception_ptr error{};
};

// The backends (one per architecture, compiling without a GPU) and the compiles to run: the
// defaults, and --config where it differs, per architecture.
struct CheckPlan {
  std::vector<Spec> specs;
  std::vector<std::unique_ptr<Backend>> backends;
  std::vector<CheckJob> jobs;
};

void plan_compiles(const CheckArgs& a, const Spec& spec, const std::vector<std::string>& targets,
                   const std::optional<Config>& config, CheckPlan& plan, std::vector<std::string>& checked) {
  const bool gpu = backend_kind(spec.backend).needs_gpu;
  plan.specs.reserve(targets.size());
  for (const std::string& arch : targets) {
    Spec s = spec;
    s.run_runner = false;  // nothing is run: no runner process
    if (!s.sizes.empty()) s.size = s.sizes.sizes.front();  // the launch expressions that read a size
    s.work_dir = spec.work_dir / "check" / (arch.empty() ? "host" : arch);
    DeviceInfo none;
    none.reason = "adaexplore-tuner check compiles without a GPU";
    if (gpu) s.compiler.arch = arch;
    plan.specs.push_back(s);
    plan.backends.push_back(make_backend(plan.specs.back(), {none}));
    auto* program = dynamic_cast<ProgramBackend*>(plan.backends.back().get());
    if (program) program->use_header_only_harness();
    const std::string where = arch.empty() ? std::string("for the host") : "for " + arch;
    plan.jobs.push_back({plan.backends.back().get(), program, &plan.specs.back(), spec.defaults, "the defaults", where,
                         kExitTuningFailed, {}});
    if (config && *config != spec.defaults)
      plan.jobs.push_back({plan.backends.back().get(), program, &plan.specs.back(), *config, a.config_from, where,
                           kExitConfigRejected, {}});
    if (program && arch == targets.front()) {
      const std::string mode = program->evaluation_mode();
      if (const auto unit = mode.find("; "); unit != std::string::npos) checked.push_back(mode.substr(unit + 2));
    }
  }
}

// The compiles run side by side, at most the tuning's compile workers at once
// (Backend::parallelism: --jobs, the spec's jobs, else the CPUs this process may run on), as
// `tune` compiles; before 2026-12-05 every compile started at once (two per --arch). A worker
// that compiled a kernel unit's configuration also waits for its architecture's benchmark (one
// build per architecture, started with the first configuration, as in a tuning).
void run_compiles(CheckPlan& plan, std::vector<std::string>& checked) {
  std::vector<CheckJob>& jobs = plan.jobs;
  const std::size_t cap = plan.backends.empty() ? 1 : std::max<std::size_t>(1, plan.backends.front()->parallelism());
  std::atomic<std::size_t> next{0};
  std::vector<std::future<void>> workers;
  for (std::size_t w = 0; w < std::min(cap, jobs.size()); ++w)
    workers.push_back(std::async(std::launch::async, [&jobs, &next] {
      for (std::size_t i = next++; i < jobs.size(); i = next++) {
        CheckJob& j = jobs[i];
        try {
          std::string report;
          Failure f = compile_one(*j.backend, *j.spec, j.config, j.what, j.where, j.code, report);
          if (j.program && j.program->kernel_unit()) (void)j.program->benchmark_build();  // waited for here
          j.result = {f, report};
        } catch (...) {
          j.error = std::current_exception();
        }
      }
    }));
  for (auto& w : workers) w.get();
  if (cap < jobs.size())  // said where it made the check slower
    checked.push_back(std::to_string(jobs.size()) + " compiles, " + std::to_string(cap) + " at a time (--jobs)");
}

// The compiles' reports into `reports`; the first failure (the defaults' before --config's, then
// in order), with the kernel unit's benchmark and the reference configuration counted as the
// defaults'.
std::optional<Failure> compile_verdict(CheckPlan& plan, std::vector<std::string>& reports) {
  std::optional<Failure> first;
  for (CheckJob& j : plan.jobs) {
    if (j.error) std::rethrow_exception(j.error);
    auto [f, report] = j.result;
    if (f.code == kExitOk && j.code == kExitTuningFailed && j.program && j.program->kernel_unit()) {
      const auto& build = j.program->benchmark_build();
      if (!build.error.empty()) f = {kExitTuningFailed, build.error};
      else report += "; the benchmark compiled " + j.where;
    }
    if (f.code == kExitOk && j.code == kExitTuningFailed && j.program && j.spec->reference.given) {
      try {
        (void)j.program->reference_cubin();
        report += "; the reference configuration compiled " + j.where;
      } catch (const SetupError& e) {
        f = {kExitTuningFailed, e.what()};
      }
    }
    if (f.code == kExitOk) reports.push_back(report);
    else if (!first || (first->code == kExitConfigRejected && f.code == kExitTuningFailed)) first = f;
  }
  return first;
}

// The defaults (and --config) compiled per architecture, or, with nothing to compile for, the
// launch limits checked from the expressions alone; the first failure, or none.
std::optional<Failure> check_compiles(const CheckArgs& a, const Spec& spec, const std::optional<Config>& config,
                                      std::vector<std::string>& checked, std::vector<std::string>& reports) {
  const std::vector<std::string> targets = compile_targets(a, spec, checked);
  if (targets.empty())  // nothing compiled: the launch limits are checked from the expressions alone
    if (auto f = check_launch_limits(a, spec, config, checked)) return f;
  CheckPlan plan;
  plan_compiles(a, spec, targets, config, plan, checked);
  run_compiles(plan, checked);
  return compile_verdict(plan, reports);
}

int run_check(const CheckArgs& a) {
  Spec spec = load_spec(a.spec);  // parameters, constraints, defaults, launch expressions
  if (a.jobs) spec.jobs = a.jobs;
  const std::string me = "adaexplore-tuner check: " + spec.name + ": ";
  check_template(template_text(spec), spec.template_path, spec.space);
  std::vector<std::string> checked = {"spec", "template placeholders and parameters",
                                      std::string("defaults ") + spec.space.label(spec.defaults) +
                                          (spec.space.constraints().empty() ? "" : " within the constraints")};
  std::optional<Config> config;
  if (const auto rejected = check_config(a, spec, me, config, checked)) return *rejected;
  std::vector<std::string> reports;
  std::optional<Failure> failure;
  if (!a.compile) {
    failure = check_launch_limits(a, spec, config, checked);
    if (!failure)
      checked.push_back("nothing compiled (--no-compile: the kernels' registers and shared memory are not checked)");
  } else {
    failure = check_compiles(a, spec, config, checked, reports);
  }
  if (failure) {
    std::cerr << me << failure->message << "\n";
    return failure->code;
  }
  for (const auto& r : reports) std::cout << "[adaexplore] " << spec.name << ": check: " << r << "\n";
  std::string summary;
  for (const auto& c : checked) summary += (summary.empty() ? "" : "; ") + c;
  std::cout << "[adaexplore] " << spec.name << ": check passed: " << summary << std::endl;
  return kExitOk;
}

}  // namespace

Command register_check_command(CLI::App& app) {
  auto a = std::make_shared<CheckArgs>();
  auto* sub = app.add_subcommand(
      "check",
      "Check a spec without a GPU and without running anything: the spec (parameters, constraints, defaults,\n"
      "launch expressions), the template's placeholders against the parameters, a --config configuration\n"
      "against the space, the constraints and the launch limits, and the defaults (and --config) rendered and\n"
      "compiled once per --arch as a tuning compiles them (the kernel unit's benchmark too), with the ptxas\n"
      "report. The same messages as `tune`.\n"
      "Exit codes: 0 passed; 1 bad spec or template; 2 the defaults do not compile (or the benchmark), or exceed\n"
      "the target's limits; 4 only the --config configuration is rejected (not in the space, violates a\n"
      "constraint or a launch limit, does not compile).");
  sub->add_option("--spec", a->spec, "tuning spec (JSON)")->required()->check(CLI::ExistingFile);
  sub->add_option("--arch", a->archs,
                  "cuda: an architecture to compile for (sm_90, 90), once each; several: --arch sm_80 --arch sm_90. "
                  "Default: the spec's compiler.arch; none: nothing compiled");
  sub->add_option("--config", a->config, "a configuration to check too, NAME=VALUE,NAME=VALUE (every parameter)");
  sub->add_option("--config-from", a->config_from,
                  "where --config comes from, for messages (e.g. \"the pinned header /src/pinned/gemm.hpp\")");
  sub->add_flag("!--no-compile", a->compile,
                "check the spec, template, --config and the launch limits of the spec's launch expressions "
                "(--arch's, else compiler.arch's, else every CUDA GPU's) only; compile nothing (the kernels' "
                "registers and shared memory are then not checked, and the summary says so)");
  sub->add_option("--jobs", a->jobs,
                  "compiles at once, as tune's --jobs (default: the spec's jobs, else the CPUs this process may run "
                  "on, its affinity mask)");
  return {sub, [a] { return run_check(*a); }};
}

}  // namespace adaexplore
