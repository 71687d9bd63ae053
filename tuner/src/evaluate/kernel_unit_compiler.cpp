// The kernel unit's compile (compiler.unit "kernel", kernel_unit.hpp): kernel.cu, which includes
// the rendered template, compiled alone to kernel.cubin with the toolchain's kernel-unit flags,
// the spec's flags, include_flags and definition_flags, and -MD -MF kernel.d (the headers, for the
// cache); or the cubin and the compiler's output (the ptxas report) of an identical compile from
// the compile cache. The verdict as for a whole program (compile_verdict, the toolchain's review).
// stage_ms "compile": the compile, or the cache's lookup and copy (prepared.compile_cached on a
// hit). The compile runs niced (niced()).
#include <chrono>

#include "evaluate/compiler.hpp"
#include "util/files.hpp"

namespace adaexplore {
namespace {

namespace fs = std::filesystem;

// `command` run at a lower CPU priority (nice -n kCompileNiceness; as it is where there is no
// nice): the configurations' compiles fill every core, and the benchmark's build and the
// measurement's CPU side (the runner's setup and verification) must not wait behind them.
std::vector<std::string> niced(std::vector<std::string> command) {
  constexpr const char* kCompileNiceness = "5";
  static const fs::path nice = find_program("nice");
  if (!nice.empty()) command.insert(command.begin(), {nice.string(), "-n", kCompileNiceness});
  return command;
}

class KernelUnitCompiler final : public Compiler {
 public:
  explicit KernelUnitCompiler(const CompileSetup& setup) : setup_(setup) {}

  std::string artifact() const override { return "kernel.cubin"; }

  void compile(Prepared& prepared) override {
    ProcessOptions options =
        logged_options(prepared.directory, "compile", setup_.spec.compiler.timeout_s);
    options.capture_limit = 4 << 20;  // the whole ptxas report, however many kernels
    write_file_if_changed(prepared.directory / "kernel.cu",
                          kernel_unit_source(setup_.rendered_name));
    const std::vector<std::string> command = this->command(prepared);
    // The key: the compiler (its path resolved and its --version), the command with this
    // folder's path replaced (another build tree compiles the same), and the rendered template's
    // text.
    std::string key = setup_.identity;
    const std::string folder = prepared.directory.string();
    for (std::string a : command) {
      for (std::size_t at = a.find(folder); at != std::string::npos; at = a.find(folder, at + 7))
        a.replace(at, folder.size(), "<eval>");
      key += a + '\n';
    }
    key += read_file(prepared.directory / setup_.rendered_name);
    const CompileCache* cache = setup_.cache;
    const auto start = std::chrono::steady_clock::now();
    if (cache)
      if (auto hit = cache->find(key, prepared.executable)) {
        ProcessResult cached;
        cached.argv = command;
        cached.exit_code = 0;
        cached.out = hit->out;
        cached.err = hit->err;
        prepared.stage_ms["compile"] =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                .count();
        prepared.compile_cached = true;
        write_file_if_changed(
            prepared.directory / "compile.cmd",
            cached.command_line() + "\n# served from " + cache->directory().string() + "\n");
        write_file_if_changed(prepared.directory / "compile.out", hit->out);
        write_file_if_changed(prepared.directory / "compile.err", hit->err);
        prepared.failure = compile_verdict(cached, prepared, setup_);
        return;
      }
    const ProcessResult compile = run_process(niced(command), options);
    write_file_if_changed(prepared.directory / "compile.cmd", compile.command_line() + "\n");
    prepared.stage_ms["compile"] = compile.wall_ms;
    prepared.failure = compile_verdict(compile, prepared, setup_);
    std::error_code ec;
    if (compile.ok() && cache && fs::exists(prepared.executable, ec))
      cache->store(key, prepared.executable, prepared.directory / "kernel.d", prepared.directory,
                   compile.out, compile.err);
  }

 private:
  std::vector<std::string> command(const Prepared& prepared) const {
    const Spec& spec = setup_.spec;
    std::vector<std::string> argv = compiler_prefix(spec.compiler);
    for (const auto& f : setup_.toolchain.kernel_unit_flags()) argv.push_back(f);
    for (const auto& f : spec.compiler.flags) argv.push_back(f);
    for (const auto& f : include_flags(spec, prepared.directory, setup_.harness)) argv.push_back(f);
    for (const auto& f : definition_flags(spec, prepared.config)) argv.push_back(f);
    const fs::path& d = prepared.directory;
    argv.insert(argv.end(), {"-MD", "-MF", (d / "kernel.d").string(), (d / "kernel.cu").string(),
                             "-o", prepared.executable.string()});
    return argv;
  }

  CompileSetup setup_;
};

}  // namespace

std::unique_ptr<Compiler> make_kernel_unit_compiler(const CompileSetup& setup) {
  return std::make_unique<KernelUnitCompiler>(setup);
}

}  // namespace adaexplore
