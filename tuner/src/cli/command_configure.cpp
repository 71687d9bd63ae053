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
// messages are exactly those of the commands. A hung GPU driver does not hang the configure: the
// device query stops after kDeviceTimeoutS.
constexpr double kDeviceTimeoutS = 120;

StepResult run_step(const fs::path& tool, const std::vector<std::string>& args, bool live) {
  return run_tool_step(tool, args, live, args.front() == "device" ? kDeviceTimeoutS : 0);
}

fs::path own_executable() {
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  return ec ? fs::path("adaexplore-tuner") : self;
}

// The tuner that runs the steps, absolute and canonical where it can be resolved (check.stamp's
// key): this one, or --tool (a name without '/' looked up in PATH, as run_process does).
fs::path step_tool(const std::string& given) {
  if (given.empty()) return own_executable();
  fs::path tool = given;
  if (!tool.has_parent_path())
    if (const fs::path found = find_program(given); !found.empty()) tool = found;
  std::error_code ec;
  const fs::path canonical = fs::weakly_canonical(fs::absolute(tool, ec), ec);
  return ec ? tool : canonical;
}

// The request file read: its OriginRequest and the device an earlier kernel asked, if any. Throws
// std::runtime_error naming the file when it cannot be read (exit code 1: the module wrote it).
OriginRequest read_request(const std::string& file, std::optional<DeviceFacts>& device) {
  try {
    const nlohmann::json j = nlohmann::json::parse(read_file(file));
    OriginRequest request = origin_request_from_json(j);
    if (j.contains("device") && j["device"].is_object()) device = device_facts_from_json(j["device"]);
    return request;
  } catch (const std::exception& e) {
    throw std::runtime_error("the request " + file + " cannot be read: " + e.what() +
                             "; AdaExplore.cmake writes it for each kernel: use the tuner of the module's version "
                             "(ADAEXPLORE_TUNER_EXECUTABLE), or configure again if it was changed by hand");
  }
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
      "names its keys). Exit code 0 when the answer is written (a fatal error is one of its messages, also for a file "
      "that cannot be read or written on the way), 1 for a request that cannot be read, 5 when the answer cannot be "
      "written.");
  auto request_file = std::make_shared<std::string>();
  auto answer_file = std::make_shared<std::string>();
  auto tool = std::make_shared<std::string>();
  sub->add_option("--request", *request_file, "the request (JSON file)")->required();
  sub->add_option("--answer", *answer_file, "where to write the answer (JSON file)")->required();
  sub->add_option("--tool", *tool,
                  "the adaexplore-tuner that runs the steps (device, tune, check, defaults); default this one. The "
                  "CMake module's tests give a stand-in.");
  return {sub, [request_file, answer_file, tool] {
            std::optional<DeviceFacts> device;
            OriginRequest request = read_request(*request_file, device);
            const auto status = [](const std::string& text) { std::cout << "-- " << text << std::endl; };
            OriginAnswer answer;
            try {
              request.tuner = step_tool(*tool);
              const RunStep run = [&](const std::vector<std::string>& args, bool live) {
                return run_step(request.tuner, args, live);
              };
              answer = configure_origin(request, device, run, status);  // a FATAL message, not a throw
            } catch (const std::exception& e) {  // what configure_origin's own catch does not reach
              answer = OriginAnswer{};
              answer.messages.push_back({"FATAL", stopped_text(request, e.what()), "", false});
            }
            write_file_if_changed(*answer_file, to_json(answer).dump(2) + "\n");
            return kExitOk;
          }};
}

}  // namespace adaexplore
