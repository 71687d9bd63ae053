// `merge`: tuning databases (or single results files) from other machines into one database,
// keeping provenance; prints a summary per kernel and key. The contract is in store/merge.hpp.
#include <iostream>
#include <memory>

#include "cli/commands.hpp"
#include "store/merge.hpp"
#include "util/text.hpp"

namespace adaexplore {
namespace {

struct MergeArgs {
  std::string into;
  std::vector<std::string> sources;
};

void print_key(const MergeKeyReport& r) {
  std::cout << "[adaexplore] merge: " << r.kernel << " " << r.key.substr(0, 16) << " (" << r.device
            << "): " << counted(r.added, "record") << " added, " << r.present << " already present";
  if (r.remeasured) std::cout << ", " << r.remeasured << " measured again (both kept)";
  if (!r.conflicts.empty())
    std::cout << ", " << counted(r.conflicts.size(), "conflict")
              << " (both kept; readers use the first)";
  std::cout << "; " << (r.created ? "new file " : "into ") << r.file.string() << "\n";
  constexpr std::size_t kShown = 20;
  for (std::size_t i = 0; i < r.conflicts.size() && i < kShown; ++i)
    std::cout << "[adaexplore] merge:   conflict " << r.conflicts[i] << "\n";
  if (r.conflicts.size() > kShown)
    std::cout << "[adaexplore] merge:   ... " << r.conflicts.size() - kShown << " more conflicts\n";
}

int run_merge(const MergeArgs& a) {
  std::vector<std::filesystem::path> sources(a.sources.begin(), a.sources.end());
  const MergeReport report = merge_into(a.into, sources);
  for (const auto& w : report.warnings) std::cerr << "[adaexplore] warning: " << w << "\n";
  std::size_t added = 0;
  for (const auto& r : report.keys) {
    print_key(r);
    added += r.added;
  }
  std::cout << "[adaexplore] merge: " << counted(added, "record") << " added to "
            << counted(report.keys.size(), "key") << " in " << a.into << std::endl;
  return kExitOk;
}

}  // namespace

Command register_merge_command(CLI::App& app) {
  auto a = std::make_shared<MergeArgs>();
  auto* sub = app.add_subcommand("merge",
                                 "Merge tuning databases or results files (from other machines) "
                                 "into one tuning database, keeping provenance.\n"
                                 "Each record goes to DIR/<kernel>/<key first 16 hex>.jsonl, as "
                                 "its source's header line says. A file created\n"
                                 "there starts with the source's header line plus \"merged_from\": "
                                 "[{path, host, merged}]; each copied record\n"
                                 "gets \"merged_from\": {path, host (where it was tuned, when the "
                                 "source says), merged (UTC)}. A record\n"
                                 "identical to one already there (ignoring index and merged_from) "
                                 "is not copied again, so merging twice\n"
                                 "changes nothing; another measurement of a configuration already "
                                 "there is copied too (measurements are never\n"
                                 "dropped; readers use the first, the destination's) and counted: "
                                 "'measured again', or 'conflict' when its\n"
                                 "status differs (listed). Each destination file is locked while "
                                 "it is read and appended to, so tunings may\n"
                                 "run meanwhile. Prints one line per kernel and key.\n"
                                 "Exit codes: 0 merged (conflicts included); 1 bad input: a source "
                                 "that is missing, or not an AdaExplore\n"
                                 "results file, or corrupt (the message names the file and line "
                                 "and the `mv` command that moves it aside; every source is read "
                                 "first, so nothing is merged then); 5 the\n"
                                 "environment: --into is a file, or a destination file cannot be "
                                 "created, locked or written (what was merged\n"
                                 "before it stopped is listed).");
  sub->add_option("--into", a->into, "destination tuning database folder (created when missing)")
      ->required();
  sub->add_option("sources", a->sources,
                  "database folders or build trees (every *.jsonl below them, recursively) and "
                  "results files")
      ->required();
  return {sub, [a] { return run_merge(*a); }};
}

}  // namespace adaexplore
