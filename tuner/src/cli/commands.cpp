#include "cli/commands.hpp"

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
}

int run_selected_command(CLI::App& app) {
  for (const auto& c : commands()) {
    if (!c.app->parsed()) continue;
    try {
      return c.run();
    } catch (const std::exception& e) {
      std::cerr << "adaexplore-tuner " << c.app->get_name() << ": error: " << e.what() << "\n";
      return kExitBadInput;
    }
  }
  std::cerr << app.help();
  return kExitBadInput;
}

}  // namespace adaexplore
