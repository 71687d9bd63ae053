#include "evaluate/compiler.hpp"

#include <algorithm>
#include <sstream>

#include "evaluate/program_outcome.hpp"

namespace adaexplore {

std::vector<std::string> include_flags(const Spec& spec, const std::filesystem::path& eval_dir,
                                       const std::filesystem::path& harness) {
  std::vector<std::string> dirs = {eval_dir.string(), spec.template_path.parent_path().string(),
                                   spec.benchmark_path.parent_path().string(), harness.string()};
  dirs.insert(dirs.end(), spec.compiler.include_dirs.begin(), spec.compiler.include_dirs.end());
  std::vector<std::string> flags;
  for (const auto& dir : dirs)
    if (std::find(flags.begin(), flags.end(), "-I" + dir) == flags.end())
      flags.push_back("-I" + dir);
  return flags;
}

std::vector<std::string> definition_flags(const Spec& spec, const Config& config) {
  std::vector<std::string> flags;
  for (const auto& d : spec.compiler.definitions)
    flags.push_back(d.rfind("-D", 0) == 0 ? d : "-D" + d);
  for (std::size_t i = 0; i < spec.space.dimension(); ++i)
    flags.push_back("-DADAEXPLORE_PARAM_" + spec.space.parameters()[i].name + "=" +
                    spec.space.value(config, i).text);
  return flags;
}

ProcessOptions logged_options(const std::filesystem::path& directory, const std::string& stem,
                              double timeout_s) {
  ProcessOptions options;
  options.timeout_s = timeout_s;
  options.working_directory = directory;
  options.stdout_file = directory / (stem + ".out");
  options.stderr_file = directory / (stem + ".err");
  return options;
}

std::optional<Outcome> compile_verdict(const ProcessResult& compile, Prepared& prepared,
                                       const CompileSetup& setup) {
  if (compile.timed_out) {
    std::ostringstream limit;
    limit.precision(4);
    limit << setup.spec.compiler.timeout_s << " s";
    Outcome o = process_failure(Status::timeout,
                                "the compiler exceeded its time limit of " + limit.str() +
                                    " and was killed with its process group",
                                compile);
    o.extra["timeout_stage"] = "compile";
    return o;
  }
  if (compile.failed_to_start)
    return process_failure(Status::compile_error,
                           "the compiler could not be started: " + compile.error, compile);
  if (auto decided = setup.toolchain.review_compile(compile, prepared)) return decided;
  if (!compile.ok())
    return process_failure(Status::compile_error, first_error_line(compile.err + compile.out),
                           compile);
  return std::nullopt;
}

}  // namespace adaexplore
