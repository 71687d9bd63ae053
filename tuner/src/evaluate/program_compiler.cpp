// The whole-program compile (compiler.unit "program"): the benchmark with the configuration's
// rendered template, compiled and linked per configuration into an executable, or a runner module
// (benchmark.so). Its command: the compiler (after the spec's launcher), the toolchain's flags,
// the spec's flags, include_flags, definition_flags, the module flags in runner mode, then
// <benchmark> -o <artifact>. With the harness built apart, against its object
// (-DADAEXPLORE_HARNESS_SEPARATE=1, the object linked).
#include <atomic>
#include <iostream>
#include <utility>

#include "evaluate/compiler.hpp"
#include "util/files.hpp"

namespace adaexplore {
namespace {

namespace fs = std::filesystem;

class ProgramCompiler final : public Compiler {
 public:
  ProgramCompiler(const CompileSetup& setup, SeparateHarness harness)
      : setup_(setup), harness_(std::move(harness)) {}

  std::string artifact() const override { return setup_.module ? "benchmark.so" : "benchmark"; }

  void compile(Prepared& prepared) override {
    ProcessOptions options =
        logged_options(prepared.directory, "compile", setup_.spec.compiler.timeout_s);
    options.capture_limit = 4 << 20;  // the whole ptxas report, however many kernels
    const Prepared before = prepared;
    const fs::path harness_object = harness_.object();
    compile_with(prepared, options, harness_object);
    if (harness_object.empty()) return;
    if (!prepared.failure) {
      separate_worked_ = true;
      return;
    }
    // A compile error against the harness built apart, before any configuration compiled that
    // way: the benchmark may use something the header-only harness brings in (a standard header
    // it does not include itself). The same configuration header-only decides; when it compiles,
    // the rest of the tuning builds header-only.
    if (prepared.failure->status != Status::compile_error || separate_worked_) return;
    Prepared retry = before;
    compile_with(retry, options, {});
    retry.stage_ms["compile"] += prepared.stage_ms["compile"];  // both compiles were paid
    if (!retry.failure && harness_.refuse())
      std::cerr << "[adaexplore] warning: " << setup_.spec.benchmark_path.string()
                << " compiles with the harness header-only but not with the harness built apart "
                   "(first error: "
                << prepared.failure->message.substr(0, prepared.failure->message.find('\n'))
                << "); it may rely on a standard header it does not include itself. The tuning "
                   "goes on header-only (slower compiles).\n";
    prepared = std::move(retry);
  }

 private:
  std::vector<std::string> command(const Prepared& prepared) const {
    const Spec& spec = setup_.spec;
    std::vector<std::string> argv = compiler_prefix(spec.compiler);  // launcher..., compiler path
    for (const auto& f : setup_.toolchain.toolchain_flags()) argv.push_back(f);
    for (const auto& f : spec.compiler.flags) argv.push_back(f);
    for (const auto& f : include_flags(spec, prepared.directory, setup_.harness)) argv.push_back(f);
    for (const auto& f : definition_flags(spec, prepared.config)) argv.push_back(f);
    if (setup_.module)
      for (const auto& f : setup_.toolchain.module_flags()) argv.push_back(f);
    argv.insert(argv.end(), {spec.benchmark_path.string(), "-o", prepared.executable.string()});
    return argv;
  }

  // Compiles (and links) the benchmark for prepared.config into prepared.executable; the verdict
  // in prepared.failure, the times in stage_ms, the commands in compile.cmd. With
  // `harness_object`, against the harness built apart.
  void compile_with(Prepared& prepared, const ProcessOptions& options,
                    const fs::path& harness_object) const {
    const Spec& spec = setup_.spec;
    std::vector<std::string> command = this->command(prepared);
    if (!harness_object.empty())
      command.insert(command.end() - 3, "-DADAEXPLORE_HARNESS_SEPARATE=1");
    if (spec.compiler.launcher.empty()) {
      if (!harness_object.empty()) command.insert(command.end() - 2, harness_object.string());
      const ProcessResult compile = run_process(command, options);
      write_file_if_changed(prepared.directory / "compile.cmd", compile.command_line() + "\n");
      prepared.stage_ms["compile"] = compile.wall_ms;
      prepared.failure = compile_verdict(compile, prepared, setup_);
      return;
    }
    // With a launcher (ccache), compile to an object, then link without it: a compiler cache
    // does not cache a call that links, and the compile's output (the ptxas report) is all the
    // verdict needs; a cache hit replays it. The link gets the same options, the object for the
    // source.
    const std::string object = (prepared.directory / "benchmark.o").string();
    std::vector<std::string> link(
        command.begin() + static_cast<long>(spec.compiler.launcher.size()), command.end());
    command[command.size() - 3] =
        "-c";  // ... benchmark.cu -o out -> ... -c benchmark.cu -o benchmark.o
    command.insert(command.end() - 2, spec.benchmark_path.string());
    command.back() = object;
    link[link.size() - 3] = object;
    if (!harness_object.empty()) link.insert(link.end() - 2, harness_object.string());
    const ProcessResult compile = run_process(command, options);
    prepared.stage_ms["compile"] = compile.wall_ms;
    std::string cmd = compile.command_line() + "\n";
    prepared.failure = compile_verdict(compile, prepared, setup_);
    if (!prepared.failure) {
      const ProcessOptions link_options =
          logged_options(prepared.directory, "link", spec.compiler.timeout_s);
      const ProcessResult linked = run_process(link, link_options);
      cmd += linked.command_line() + "\n";
      prepared.stage_ms["link"] = linked.wall_ms;
      if (linked.timed_out || linked.failed_to_start || !linked.ok())
        prepared.failure = compile_verdict(linked, prepared, setup_);
    }
    write_file_if_changed(prepared.directory / "compile.cmd", cmd);
    std::error_code ec;
    fs::remove(object, ec);
  }

  CompileSetup setup_;
  SeparateHarness harness_;
  std::atomic<bool> separate_worked_{false};  // a configuration compiled against the object
};

}  // namespace

std::unique_ptr<Compiler> make_program_compiler(const CompileSetup& setup,
                                                SeparateHarness harness) {
  return std::make_unique<ProgramCompiler>(setup, std::move(harness));
}

}  // namespace adaexplore
