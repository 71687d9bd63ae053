// `measure`: the given configurations of a spec measured again, interleaved (confirm.hpp), e.g. to
// compare the winners of two tunings under the same conditions. Nothing is written to a results
// file or database: the figures go to stdout and, with --json, to a file.
#include <fstream>
#include <iostream>
#include <sstream>

#include "evaluate/backends.hpp"
#include "model/backend_kind.hpp"
#include "cli/commands.hpp"
#include "loop/confirm.hpp"
#include "evaluate/device.hpp"
#include "evaluate/render.hpp"
#include "model/spec.hpp"
#include "util/text.hpp"

namespace adaexplore {
namespace {

struct MeasureArgs {
  std::string spec, json;
  std::vector<std::string> configs;
  std::size_t rounds = 5;
  int device = 0;
};

// "BLOCK_M=64,BLOCK_N=32,..." (the label format of results files and progress lines).
Config parse_label(const Space& space, const std::string& label) {
  std::vector<std::pair<std::string, std::string>> texts;
  std::istringstream in(label);
  std::string item;
  while (std::getline(in, item, ',')) {
    const auto eq = item.find('=');
    if (eq == std::string::npos)
      throw std::runtime_error("--config \"" + label + "\": \"" + item + "\" is not NAME=VALUE; give every parameter, "
                               "as in a results file's label (\"A=1,B=2\")");
    texts.emplace_back(item.substr(0, eq), item.substr(eq + 1));
  }
  return space.config_from_texts(texts);
}

int run_measure(const MeasureArgs& a) {
  Spec spec = load_spec(a.spec);
  std::vector<DeviceInfo> devices;
  if (backend_kind(spec.backend).needs_gpu) {
    const DeviceInfo device = query_device(a.device);
    if (!device.present) {
      std::cerr << "adaexplore-tuner measure: no CUDA GPU: " << device.reason << "\n";
      return kExitNoGpu;
    }
    devices.push_back(device);
  }
  std::unique_ptr<Backend> backend = make_backend(spec, devices);
  std::vector<Outcome> contenders;
  for (const auto& label : a.configs) {
    Outcome o;
    o.config = parse_label(spec.space, label);
    if (!spec.space.satisfies(o.config))
      throw std::runtime_error("--config \"" + label + "\" violates a constraint of " + spec.file.string());
    o.label = spec.space.label(o.config);
    for (const auto& other : contenders)
      if (other.config == o.config)
        throw std::runtime_error("--config \"" + label + "\" is given twice; give each configuration once");
    o.objective = 0;  // no tuning figure: the rounds decide
    contenders.push_back(o);
  }
  ConfirmOptions options;
  options.rounds = a.rounds;
  const Confirmation c = confirm_near_ties(*backend, contenders, options);
  std::cout << "[adaexplore] " << spec.name << ": " << counted(contenders.size(), "configuration")
            << " measured interleaved, "
            << counted(a.rounds, "round") << " (" << backend->evaluation_mode() << "):\n";
  for (const auto& line : c.describe()) std::cout << "[adaexplore] " << spec.name << ": " << line << "\n";
  if (!a.json.empty()) std::ofstream(a.json) << c.to_json().dump(2) << "\n";
  return c.winner ? kExitOk : kExitTuningFailed;
}

}  // namespace

Command register_measure_command(CLI::App& app) {
  auto a = std::make_shared<MeasureArgs>();
  auto* sub = app.add_subcommand(
      "measure",
      "Measure the given configurations of a spec again, interleaved: ROUNDS rounds, each running every "
      "configuration once (whole benchmark: verification, warm-up, timed runs) in an order rotated per round; "
      "prints each one's median per round and the median of those (ms), and the fastest. Nothing is stored. "
      "Exit 0 when one succeeded every round, 2 otherwise.");
  sub->add_option("--spec", a->spec, "tuning spec (JSON)")->required()->check(CLI::ExistingFile);
  sub->add_option("--config", a->configs, "a configuration as NAME=VALUE,NAME=VALUE (every parameter); two or more")
      ->required()
      ->expected(2, 64);
  sub->add_option("--rounds", a->rounds, "rounds (default 5)")->default_val(5)->check(CLI::Range(1, 1000));
  sub->add_option("--json", a->json, "write the figures here as JSON ({rounds, contenders: [{label, round_ms, median_ms, "
                                     "failure, winner}]})");
  sub->add_option("--device", a->device, "cuda: CUDA device index (default 0)");
  return {sub, [a] { return run_measure(*a); }};
}

}  // namespace adaexplore
