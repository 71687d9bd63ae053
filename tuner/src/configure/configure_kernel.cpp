// configure_kernel (configure_kernel.hpp): the GPUs, then one key (here) or one per size
// (sized.cpp), the header, and a stale header removed when a tuning that ran wrote none.
#include "configure/configure_kernel.hpp"

#include "configure/tuning.hpp"
#include "emit/header.hpp"
#include "emit/header_info.hpp"
#include "loop/crown.hpp"
#include "util/files.hpp"
#include "util/text.hpp"

namespace adaexplore {
namespace {

// One key's part of the answer.
KeyResult key_result(const KeyPlace& place, std::size_t resumed, const std::vector<Outcome>& outcomes,
                     const std::optional<Outcome>& winner) {
  KeyResult k;
  k.key = place.header.key;
  k.results = place.results;
  k.resumed = resumed;
  k.evaluations = outcomes.size();
  k.new_evaluations = outcomes.size() > resumed ? outcomes.size() - resumed : 0;
  k.winner = winner;
  return k;
}

// cached: the header from the key's stored winner; nothing is evaluated.
KernelResult configure_cached(const Tuning& t, const Spec& spec, const KeyPlace& place) {
  KernelResult result;
  result.header = header_path_of(spec, t.request);
  const ResultsHeader& header = place.header;
  const auto& path = place.results;
  const std::string where = t.request.command + " --cached: " + spec.name + ": the tuning database " +
                            t.request.database.string();
  const std::string key_words = "key " + header.key.substr(0, 16) + " (" + device_words(header.device) + ")";
  if (!std::filesystem::exists(path) || std::filesystem::file_size(path) == 0) {
    t.err() << where << " holds no results for " << key_words << "; nothing evaluated, no header written\n";
    result.ending = Ending::no_result;
    result.reason = "the tuning database holds no results for " + key_words;
    return result;
  }
  const ResultsFile stored = read_results(path, spec.space);
  if (stored.header.key != header.key)
    throw ResultsError(path.string() + ":1: holds key " + stored.header.key + ", this tuning has key " + header.key +
                       "; move it aside (" + move_aside_command(path) + ")");
  print_warnings(t, stored.warnings);
  const auto best = crown(stored.outcomes, {path, header.key});  // the tuning's near-tie verdict too
  result.keys.push_back(key_result(place, stored.outcomes.size(), stored.outcomes, best));
  if (!best) {
    t.err() << where << " holds " << counted(stored.outcomes.size(), "evaluation") << " for " << key_words
            << ", none successful; no header written\n";
    result.ending = Ending::no_result;
    result.reason = "the tuning database holds no successful result for " + key_words;
    return result;
  }
  const HeaderInfo info = stored_header_info(spec, stored, spec.strategy, spec.seed, path);
  result.header_text = render_header(spec.space, best->config, info);
  result.header_changed = write_file_if_changed(result.header, result.header_text);
  t.out() << "[adaexplore] " << spec.name << ": cached: best " << best->label << " " << *best->objective << " ms ("
          << counted(stored.outcomes.size(), "evaluation") << " stored in " << path.string() << "); header "
          << result.header.string() << (result.header_changed ? " written" : " unchanged") << std::endl;
  return result;
}

// The header of one key's winner, written only when its bytes change; Ending::bad_input or
// environment, having said why, when it cannot be written (the evaluations are kept).
void write_tuned_header(const Tuning& t, const Spec& spec, const KeyPlace& place, const TuneReport& report,
                        KernelResult& result) {
  HeaderInfo info = tuned_header_info(spec, place.header, report.outcomes, report.best, spec.strategy, spec.seed);
  if (report.new_evaluations == 0)  // nothing recorded now: the budget of the tuning that recorded them
    if (const auto recorded = recorded_budget(read_raw_results(place.results))) info.budget = *recorded;
  info.skipped = report.skipped;  // only a tuning knows it ended "space exhausted" (not stored_header_info())
  try {
    result.header_text = render_header(spec.space, report.best->config, info);
    result.header_changed = write_file_if_changed(result.header, result.header_text);
  } catch (const std::exception& e) {
    header_not_written(t, spec, e, std::to_string(report.outcomes.size()) + " evaluations are kept in " +
                                       place.results.string(), result);
    return;
  }
  t.out() << "[adaexplore] " << spec.name << ": best " << report.best->label << " " << *report.best->objective
          << " ms";
  if (report.baseline && report.baseline->objective) t.out() << " vs defaults " << *report.baseline->objective << " ms";
  t.out() << "; header " << result.header.string() << (result.header_changed ? " written" : " unchanged")
          << std::endl;
}

// A spec without sizes: its one key tuned (or, cached, read) and its header written.
KernelResult configure_one_key(const Tuning& t, const Spec& spec) {
  const auto header_path = header_path_of(spec, t.request);
  std::unique_ptr<Backend> backend = tuning_backend(t, spec);
  KeyPlace place = key_place(t.request, spec, *backend, included_headers(t.request, *backend, header_path), "");
  if (t.request.cached) return configure_cached(t, spec, place);
  KernelResult result;
  result.header = header_path;
  TuneReport report;
  std::string reason;
  std::filesystem::path report_file;
  const bool ok = tune_key(t, spec, *backend, place, {}, spec.name, report, reason, &report_file);
  result.keys.push_back(key_result(place, report.outcomes.size() - report.new_evaluations, report.outcomes,
                                   ok ? report.best : std::nullopt));
  result.keys.back().report = report_file;
  if (!ok) {
    result.ending = Ending::tuning_failed;
    result.reason = reason;
    return result;
  }
  write_tuned_header(t, spec, place, report, result);
  return result;
}

// After a tuning that ran and wrote no header (no configuration verified, a broken setup, only
// distrusted timings; a size without a winner): a header an earlier tuning wrote at `path` no
// longer matches the sources this tuning failed on, and a build against it would not say so
// (kTuned = true). It is removed, saying so; its tuning's results stay where they were (the
// results file, the database, or what retune set aside). A file AdaExplore did not write is left,
// with a warning. docs/outcomes.md. True when it was removed.
bool remove_stale_header(const Tuning& t, const std::filesystem::path& path, const Spec& spec) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return false;
  std::string first;
  try {
    const std::string text = read_file(path);
    first = text.substr(0, text.find('\n'));
  } catch (const std::exception&) {
  }
  if (first.rfind("// Generated by AdaExplore", 0) != 0) {
    t.err() << "[adaexplore] " << spec.name << ": warning: " << path.string()
            << " was not written by AdaExplore and is left as it is, though this tuning wrote no header\n";
    return false;
  }
  std::filesystem::remove(path, ec);
  if (ec) {
    t.err() << "[adaexplore] " << spec.name << ": warning: cannot remove the earlier tuning's header "
            << path.string() << " (" << ec.message() << "): it does not match the sources this tuning failed on\n";
    return false;
  }
  t.err() << t.request.command << ": " << spec.name << ": removed the header " << path.string()
          << " of an earlier tuning: it does not match the sources this tuning failed on. `adaexplore-tuner "
             "defaults --spec " << spec.file.string() << " --header " << path.string()
          << "` writes the defaults (kTuned = false) to build with meanwhile\n";
  return true;
}

}  // namespace

void header_not_written(const Tuning& t, const Spec& spec, const std::exception& e, const std::string& kept,
                        KernelResult& result) {
  const bool environment = dynamic_cast<const EnvironmentError*>(&e) != nullptr;
  const std::string database =
      t.request.database.empty() ? "" : " (the tuning database " + t.request.database.string() + ")";
  const std::string what = e.what();
  const bool named = what.find(result.header.string()) != std::string::npos;  // "cannot write <header>: ..."
  t.err() << t.request.command << ": " << spec.name << ": no header written" << (named ? "" : " to " + result.header.string())
          << (environment ? " (the environment, not the input)" : "") << ": " << what << "; the " << kept
          << database << ": once it can be written, `adaexplore-tuner tune --cached` (with --database) or the same "
          << "command writes it without measuring again\n";
  result.header_text.clear();
  result.header_changed = false;
  result.ending = environment ? Ending::environment : Ending::bad_input;
  result.reason = "no header written" + (named ? "" : " to " + result.header.string()) + ": " + what;
}

KernelResult configure_kernel(const Spec& spec, const Request& request, Messages& messages) {
  Tuning t;
  t.request = request;
  t.messages = &messages;
  if (const std::string missing = find_tuning_devices(request, spec, t.devices); !missing.empty()) {
    messages.err << request.command << ": " << missing;
    if (!request.cached)
      messages.err << "\n  (use `adaexplore-tuner defaults` or a pinned header on machines without a GPU)";
    messages.err << "\n";
    KernelResult result;
    result.ending = Ending::no_device;
    result.reason = missing;
    result.header = header_path_of(spec, request);
    return result;
  }
  KernelResult result = spec.sizes.empty() ? configure_one_key(t, spec) : configure_sizes(t, spec);
  if (!request.cached && (result.ending == Ending::tuning_failed || result.ending == Ending::no_result))
    result.stale_header_removed = remove_stale_header(t, result.header, spec);
  return result;
}

KernelResult write_defaults_header(const Spec& spec, const std::filesystem::path& header, const std::string& reason,
                                   Messages& messages) {
  const HeaderInfo info = header_info(spec, "defaults", reason);
  KernelResult result;
  result.header = default_path(spec, header, spec.name + ".hpp");
  if (spec.sizes.empty()) {
    result.header_text = render_header(spec.space, spec.defaults, info);
  } else {  // the same declarations as a tuned header of these sizes, every entry the defaults
    std::vector<SizeHeaderEntry> entries;
    for (std::size_t i = 0; i < spec.sizes.sizes.size(); ++i) entries.push_back(size_entry(spec.sizes, i, spec.defaults));
    result.header_text = render_sized_header(spec.space, spec.sizes.names, entries, info);
  }
  result.header_changed = write_file_if_changed(result.header, result.header_text);
  messages.out << "[adaexplore] " << spec.name << ": defaults header " << result.header.string()
               << (result.header_changed ? " written" : " unchanged") << std::endl;
  return result;
}

}  // namespace adaexplore
