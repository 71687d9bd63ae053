// `configure`: the CMake module's one call per kernel (cmake/AdaExplore.cmake). It decides where
// the header's values come from and produces the header (configure/origin.hpp), then writes its
// answer as JSON for the module to read with string(JSON).
#include <filesystem>
#include <iostream>
#include <memory>

#include "cli/commands.hpp"
#include "configure/origin.hpp"
#include "util/files.hpp"
#include "util/process.hpp"

namespace adaexplore {
namespace {

namespace fs = std::filesystem;

// The steps (device, tune, check, defaults) are this tuner's own subcommands, run as child
// processes of `tool` (this executable, or --tool), so that their exit codes, progress lines and
// messages are exactly those of the commands.
// merge: the tune step becomes configure_kernel() (configure/configure_kernel.hpp, branch i38-core)
// called in this process with Messages{std::cout, <captured stream>} and its Ending mapped to the
// exit codes (header_written 0, tuning_failed 2, no_device/no_result 3, bad_input 1, environment 5);
// keep the child process when --tool is given (the CMake API tests' stand-in tuner).
StepResult run_step(const fs::path& tool, const std::vector<std::string>& args, bool live) {
  std::vector<std::string> argv = {tool.string()};
  argv.insert(argv.end(), args.begin(), args.end());
  ProcessOptions options;
  options.inherit_stdout = live;
  if (args.front() == "device") options.timeout_s = 120;  // a hung driver does not hang the configure
  options.capture_limit = 256 * 1024;
  const ProcessResult p = run_process(argv, options);
  StepResult s;
  s.command = p.command_line();
  s.out = p.out;
  s.err = p.err;
  s.exit_code = p.exit_code ? *p.exit_code : 128 + p.signal.value_or(0);
  if (p.failed_to_start) {
    s.exit_code = 127;
    s.err += p.error;
  }
  return s;
}

fs::path own_executable() {
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  return ec ? fs::path("adaexplore-tuner") : self;
}

}  // namespace

Command register_configure_command(CLI::App& app) {
  auto* sub = app.add_subcommand(
      "configure",
      "The CMake module's call for one kernel at configure time: decides where the header's values come from "
      "(a tuning, the tuning database's stored winner, the pinned header or the defaults; ADAEXPLORE_MODE, the GPU, "
      "cross-compiling) and writes the header, then writes --answer: JSON {origin: TUNED|PINNED|DEFAULTS (\"\" after "
      "a fatal error), messages: [{level: STATUS|NOTICE|WARNING|FATAL, text, once?, shown}], device?, retuned}. "
      "STATUS lines are also printed on stdout as they happen (\"-- <text>\", as CMake prints them; shown: true), "
      "with a tuning's progress lines. --request: JSON written by the module (configure/origin.hpp OriginRequest "
      "names its keys). Exit code 0 when the answer is written (a fatal error is one of its messages), 1 for a "
      "request that cannot be read.");
  auto request_file = std::make_shared<std::string>();
  auto answer_file = std::make_shared<std::string>();
  auto tool = std::make_shared<std::string>();
  sub->add_option("--request", *request_file, "the request (JSON file)")->required();
  sub->add_option("--answer", *answer_file, "where to write the answer (JSON file)")->required();
  sub->add_option("--tool", *tool,
                  "the adaexplore-tuner that runs the steps (device, tune, check, defaults); default this one. The "
                  "CMake module's tests give a stand-in.");
  return {sub, [request_file, answer_file, tool] {
            const nlohmann::json j = nlohmann::json::parse(read_file(*request_file));
            const OriginRequest request = origin_request_from_json(j);
            std::optional<DeviceFacts> device;
            if (j.contains("device") && j["device"].is_object()) device = device_facts_from_json(j["device"]);
            const fs::path executable = tool->empty() ? own_executable() : fs::path(*tool);
            const RunStep run = [&](const std::vector<std::string>& args, bool live) {
              return run_step(executable, args, live);
            };
            const auto status = [](const std::string& text) { std::cout << "-- " << text << std::endl; };
            const OriginAnswer answer = configure_origin(request, device, run, status);
            write_file_if_changed(*answer_file, to_json(answer).dump(2) + "\n");
            return kExitOk;
          }};
}

}  // namespace adaexplore
