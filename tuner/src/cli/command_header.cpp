// `header --database`: one header from the tuning database's winners of a spec's kernel, one entry
// per compute capability (header.hpp: render_multi_device_header); the single-device header of
// `tune` when one device is stored. Needs no GPU.
#include <iostream>
#include <memory>

#include "cli/commands.hpp"
#include "model/backend_kind.hpp"
#include "emit/header_info.hpp"
#include "emit/header_selection.hpp"
#include "store/database.hpp"
#include "util/files.hpp"

namespace adaexplore {
namespace {

struct HeaderArgs {
  std::string database, spec, out;
  std::vector<std::string> prefer;
};

std::string cc_words(int cc) { return std::to_string(cc / 10) + "." + std::to_string(cc % 10); }

int run_header(const HeaderArgs& a) {
  const Spec spec = load_spec(a.spec);
  if (!spec.sizes.empty())
    throw std::invalid_argument(a.spec + ": has \"sizes\"; `header --database` writes one entry per compute capability "
                                "and does not combine sizes with devices yet: use `tune --database DIR --cached` on a "
                                "machine with the GPU (one header of every size for that GPU)");
  const auto keys = stored_keys(a.database, spec.name);
  const HeaderSelection sel = select_for_header(keys, spec, a.prefer);
  for (const auto& note : sel.notes)
    std::cout << "[adaexplore] " << spec.name << ": " << note << "\n";
  if (sel.chosen.empty()) {
    std::cerr << "adaexplore-tuner header: " << spec.name << ": the tuning database " << a.database
              << " holds no successful result for this spec, its template and benchmark ("
              << keys.size() << " keys of kernel " << spec.name << "); no header written\n";
    return kExitNoResult;
  }
  std::string text, summary;
  if (sel.usable == 1 || !backend_kind(spec.backend).needs_gpu) {
    const DeviceChoice& c = sel.chosen.front();
    text = render_header(
        spec.space, c.best.config,
        stored_header_info(spec, c.results, c.results.header.strategy, c.results.header.seed, c.file));
    summary = "one device: " + c.results.header.device.value("name", std::string("unknown device"));
    if (!c.why.empty()) summary += " (" + c.why + ")";
  } else {
    std::vector<DeviceHeaderEntry> entries;
    for (const auto& c : sel.chosen) {
      entries.push_back(
          {c.compute_capability, c.best.config,
           stored_header_info(spec, c.results, c.results.header.strategy, c.results.header.seed, c.file),
           c.why});
      summary += (summary.empty() ? "" : ", ") + std::string("sm_") +
                 std::to_string(c.compute_capability) + " " +
                 c.results.header.device.value("name", std::string("unknown device"));
    }
    text = render_multi_device_header(spec.space, entries, spec.defaults, header_info(spec, ""));
    summary = std::to_string(entries.size()) + " compute capabilities (" + summary +
              "), fallback the defaults";
    if (entries.size() == 1)
      summary = "compute capability " + cc_words(entries[0].compute_capability) + " (" +
                entries[0].why + "), fallback the defaults";
  }
  const bool wrote = write_file_if_changed(a.out, text);
  std::cout << "[adaexplore] " << spec.name << ": header " << a.out
            << (wrote ? " written" : " unchanged") << ": " << summary << std::endl;
  return kExitOk;
}

}  // namespace

Command register_header_command(CLI::App& app) {
  auto a = std::make_shared<HeaderArgs>();
  auto* sub = app.add_subcommand("header",
                                 "Write one header from a tuning database: the winners of the "
                                 "spec's kernel on every device stored for the\n"
                                 "spec's content (same spec, template and benchmark; any device), "
                                 "one entry per compute capability, chosen\n"
                                 "at compile time per __CUDA_ARCH__ in device code and at run time "
                                 "per device (current_params(), nvcc\n"
                                 "builds; params_for(cc) everywhere), the defaults as the "
                                 "fallback. Several devices of one compute\n"
                                 "capability: the one --prefer-device names, else the most recent "
                                 "tuning; the header says which. One device\n"
                                 "stored: the same bytes as `tune` writes. Needs no GPU.\n"
                                 "Exit codes: 0 header written or unchanged; 1 bad input (spec, a "
                                 "corrupt or foreign database file: the\n"
                                 "message names the file and line and the `mv` command that moves "
                                 "it aside); 3 no successful result stored\n"
                                 "for the spec (one line on stderr); 5 the environment (--out cannot be "
                                 "written: a folder, permissions, disk).");
  sub->add_option(
         "--database", a->database,
         "tuning database folder (see `tune --database`); a missing one holds nothing (exit 3)")
      ->required();
  sub->add_option("--spec", a->spec, "tuning spec (JSON) of the kernel")
      ->required()
      ->check(CLI::ExistingFile);
  sub->add_option("--out", a->out, "header to write; rewritten only when its content changes")
      ->required();
  sub->add_option(
      "--prefer-device", a->prefer,
      "among several devices of one compute capability, the first whose name contains NAME "
      "(case-sensitive; repeat for an order of preference); default: the most recent tuning");
  return {sub, [a] { return run_header(*a); }};
}

}  // namespace adaexplore
