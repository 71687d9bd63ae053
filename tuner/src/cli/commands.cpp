#include "cli/commands.hpp"

#include "util/files.hpp"

#include <filesystem>
#include <iostream>
#include <vector>

namespace adaexplore {
namespace {
std::vector<Command>& commands() {
  static std::vector<Command> all;
  return all;
}
}  // namespace

void register_commands(CLI::App& app) {
  commands() = {register_tune_command(app), register_defaults_command(app), register_device_command(app),
                register_strategies_command(app), register_replay_command(app),
                register_explain_command(app)};
  commands().push_back(register_merge_command(app));
  commands().push_back(register_header_command(app));
  commands().push_back(register_runner_command(app));
  commands().push_back(register_measure_command(app));
  commands().push_back(register_check_command(app));
  commands().push_back(register_report_command(app));
  commands().push_back(register_configure_command(app));
}

int run_selected_command(CLI::App& app) {
  for (const auto& c : commands()) {
    if (!c.app->parsed()) continue;
    const std::string prefix = "adaexplore-tuner " + c.app->get_name() + ": ";
    try {
      return c.run();
    } catch (const EnvironmentError& e) {
      std::cerr << prefix << "error (the environment, not the input): " << e.what() << "\n";
      return kExitEnvironment;
    } catch (const std::filesystem::filesystem_error& e) {
      std::cerr << prefix << "error (the environment, not the input): " << e.what()
                << "; check that each path is a folder or a file as it must be, that its folder is writable, and "
                   "that the disk has space\n";
      return kExitEnvironment;
    } catch (const std::exception& e) {
      std::cerr << prefix << "error: " << e.what() << "\n";
      return kExitBadInput;
    }
  }
  std::cerr << app.help();
  return kExitBadInput;
}

}  // namespace adaexplore
