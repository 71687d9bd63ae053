// A key finished (tuning.hpp finish_key): its finalists profiled with Nsight Compute, then its
// report written.
#include <algorithm>

#include "cluster/cluster.hpp"
#include "configure/tuning.hpp"
#include "emit/report.hpp"
#include "evaluate/profile.hpp"
#include "evaluate/program_backend.hpp"
#include "loop/crown.hpp"
#include "store/profiles.hpp"
#include "util/text.hpp"

namespace adaexplore {
namespace {

// The report of one key's results (report.hpp), written after its tuning, with `winner` (the
// crowned one) when given; a report that cannot be written is a warning (the tuning and its
// results stand). Returns the report's path, or empty when none was written.
std::filesystem::path write_tuning_report(const Tuning& t, const Spec& spec, const KeyPlace& place,
                                          const std::string& label, const std::string& profile_note,
                                          const std::optional<Outcome>& winner) {
  if (t.request.no_report) return {};
  const auto out = report_path(t.request, place.results, place.leaf);
  try {
    ReportInput input = report_input_from_results(spec, place.results);
    if (winner) input.winner = winner;
    if (input.profiles.empty()) input.profile_note = profile_note;
    const std::string note = write_report(input, out, find_chart_library(t.request.chartjs));
    if (!note.empty()) t.err() << "[adaexplore] " << label << ": warning: " << note << "\n";
    t.out() << "[adaexplore] " << label << ": report " << out.string() << std::endl;
    return out;
  } catch (const std::exception& e) {
    t.err() << "[adaexplore] " << label << ": warning: no report written to " << out.string() << ": " << e.what()
            << "\n";
    return {};
  }
}

// The configurations to profile: the winner, the defaults (when they succeeded) and up to 3
// finalists, the next fastest successes that could be crowned (not suspicious, not `excluded`).
std::vector<ProfileTarget> profile_targets_of(const Spec& spec, const Outcome& winner, const std::vector<Outcome>& outcomes,
                                              const std::set<Config>& excluded) {
  std::vector<ProfileTarget> targets = {{"winner", winner.config}};
  const Outcome* defaults = outcome_of(outcomes, spec.defaults);
  if (defaults && is_success(defaults->status) && defaults->config != winner.config)
    targets.push_back({"defaults", defaults->config});
  std::vector<const Outcome*> rest;
  for (const auto& o : outcomes)  // a success with a time the harness trusts (crown.hpp)
    if (o.config != winner.config && o.config != spec.defaults && !excluded.count(o.config) && crownable(o))
      rest.push_back(&o);
  std::stable_sort(rest.begin(), rest.end(), [](const Outcome* x, const Outcome* y) { return *x->objective < *y->objective; });
  for (std::size_t i = 0; i < rest.size() && i < 3; ++i)
    targets.push_back({"finalist " + std::to_string(i + 2), rest[i]->config});
  return targets;
}

// Staged profiling (request.profile): after the search, ncu on the winner, the defaults and up to 3
// finalists, appended as one batch beside the results (store/profiles.hpp profiles_path). Only when the
// newest batch of the key has no successful profile of this winner (a reconfigure with nothing
// new profiles nothing; a failed one is tried again). `backend`: null when the tuning failed.
// Returns why there are no profiles, for the report, or "".
std::string profile_key(const Tuning& t, const Spec& spec, Backend* backend, const KeyPlace& place,
                        const std::string& label, const std::optional<Outcome>& winner, const std::vector<Outcome>& outcomes,
                        const std::set<Config>& excluded) {
  if (!t.request.profile) return "not asked for";
  if (!winner || !backend) return "no winner to profile";
  if (auto* cluster = dynamic_cast<ClusterBackend*>(backend)) backend = &cluster->local();  // profiled on rank 0
  auto* program = dynamic_cast<ProgramBackend*>(backend);
  if (!program) return "the " + backend->name() + " backend runs no program to profile";
  const std::string name = spec.space.label(winner->config);
  const nlohmann::json stored = latest_profile_batch(place.results, place.header.key);
  if (stored.is_object())
    for (const auto& p : stored["results"])
      if (p.value("role", "") == "winner" && p.value("label", "") == name && p.value("error", "").empty()) return "";
  std::optional<std::filesystem::path> ncu;
  try {
    ncu = find_ncu(spec.compiler.path);
  } catch (const std::exception& e) {
    t.err() << "[adaexplore] " << label << ": warning: --profile: " << e.what() << "\n";
    return e.what();
  }
  if (!ncu) {
    const std::string why = "Nsight Compute (ncu) was not found on PATH, beside " + spec.compiler.path +
                            " or in $ADAEXPLORE_NCU";
    t.err() << "[adaexplore] " << label << ": warning: --profile: " << why << "; not profiled\n";
    return why;
  }
  ProfileOptions options;
  options.ncu = *ncu;
  options.time_cap_s = t.request.profile_time_limit_s;
  const auto targets = profile_targets_of(spec, *winner, outcomes, excluded);
  t.out() << "[adaexplore] " << label << ": profiling " << counted(targets.size(), "configuration") << " with "
          << ncu->string()
            << " (none started after " << t.request.profile_time_limit_s << " s)" << std::endl;
  const auto results = profile_targets(*program, targets, options);
  nlohmann::json batch = nlohmann::json::array();
  for (const auto& r : results) {
    batch.push_back(to_json(r, spec.space));
    t.out() << "[adaexplore] " << label << ": profile of the " << r.role << " (" << r.label << "): "
              << (r.error.empty() ? "done in " + std::to_string(r.wall_s) + " s" : r.error) << std::endl;
  }
  append_profile_batch(place.results, place.header.key, batch);
  return "";
}

}  // namespace

std::filesystem::path finish_key(const Tuning& t, const Spec& spec, Backend* backend, const KeyPlace& place,
                                 const std::string& label, const std::optional<Outcome>& winner,
                                 const std::vector<Outcome>& outcomes, const std::set<Config>& excluded) {
  std::error_code ec;
  if (!std::filesystem::exists(place.results, ec)) return {};  // stopped before anything was recorded
  std::string note;
  try {
    note = profile_key(t, spec, backend, place, label, winner, outcomes, excluded);
  } catch (const std::exception& e) {  // the tuning and its results stand
    note = std::string("profiling failed: ") + e.what();
    t.err() << "[adaexplore] " << label << ": warning: " << note << "\n";
  }
  return write_tuning_report(t, spec, place, label, note, winner);
}

}  // namespace adaexplore
