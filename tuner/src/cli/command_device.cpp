// `device`: what the CUDA runtime reports; `strategies`: the registered search strategies.
#include <iostream>

#include "cli/commands.hpp"
#include "evaluate/device.hpp"
#include "search/strategy.hpp"

namespace adaexplore {

Command register_device_command(CLI::App& app) {
  auto* sub = app.add_subcommand("device",
                                 "Print the GPU the CUDA runtime reports, as JSON {present, name, compute_capability, "
                                 "sm_count, memory_bytes, driver_version, runtime_version, limits (bytes)}. Exit code "
                                 "0 when a GPU is present, 3 when none (the reason is in the JSON).");
  auto index = std::make_shared<int>(0);
  sub->add_option("--index", *index, "CUDA device index (default 0)");
  return {sub, [index] {
            const DeviceInfo d = query_device(*index);
            std::cout << d.to_json().dump(2) << std::endl;
            return d.present ? kExitOk : kExitNoGpu;
          }};
}

Command register_strategies_command(CLI::App& app) {
  auto* sub = app.add_subcommand("strategies", "List the registered search strategies.");
  return {sub, [] {
            for (const auto& s : registered_strategies()) std::cout << s.name << "\t" << s.description << "\n";
            return kExitOk;
          }};
}

}  // namespace adaexplore
