// A kernel with sizes (tuning.hpp configure_sizes): every size's key and stored outcomes first (one
// backend answers for the key's backend, device and headers, which no size changes); then the
// sizes with budget left, in tuning order, each from the others' evidence; then every size's
// winner evaluated at every size; the header from the stored results. A size whose tuning fails
// does not stop the others (their results are kept); the configuration then fails naming it, with
// no header written.
#include <algorithm>

#include "configure/tuning.hpp"
#include "emit/header.hpp"
#include "emit/header_info.hpp"
#include "loop/crown.hpp"
#include "model/sizes.hpp"
#include "store/database.hpp"
#include "util/files.hpp"
#include "util/text.hpp"

namespace adaexplore {
namespace {

// One problem size of a kernel with "sizes" (sizes.hpp): its spec, key and outcomes; its backend
// made only when the size has something to evaluate, and released after.
struct SizeState {
  std::size_t index = 0;  // in spec.sizes.sizes
  Spec spec;
  KeyPlace place;
  std::vector<Outcome> outcomes;  // stored or tuned
  std::string label;              // "gemm [M=512 N=512 K=512]"
  std::size_t resumed = 0;        // outcomes stored before this configuration
  std::filesystem::path report;   // written by finish_key
};

// A failure that makes a configuration unusable at a size (its result or its launch): one that
// failed so at any tuned size where some configuration succeeds is crowned at none, since select()
// may hand it sizes near that one. (At a size where none succeeds the failures say nothing about
// the configurations: the benchmark fails there.)
bool unusable(Status s) { return s == Status::wrong_result || s == Status::crash || s == Status::launch_error; }

// The configurations unusable at a tuned size where some configuration succeeds.
std::set<Config> unusable_configs(const std::vector<SizeState>& states) {
  std::set<Config> excluded;
  for (const auto& z : states)
    if (crown(z.outcomes))
      for (const auto& o : z.outcomes)
        if (unusable(o.status)) excluded.insert(o.config);
  return excluded;
}

// The winner of size `z` as the header crowns it (crown.hpp): the near-tie verdict's, else the
// best of the successful configurations, none of them `excluded` (unusable_configs).
std::optional<Outcome> crowned(const SizeState& z, const std::set<Config>& excluded) {
  return crown(z.outcomes, {z.place.results, z.place.header.key, &excluded});
}

// The sizes' part of the answer, from their states and (when written) the header's entries.
void record_keys(const std::vector<SizeState>& states, const std::vector<SizeHeaderEntry>& entries,
                 const std::vector<std::string>& failed, KernelResult& result) {
  result.keys.clear();
  for (std::size_t i = 0; i < states.size(); ++i) {
    const SizeState& z = states[i];
    KeyResult k;
    k.size = z.spec.sizes.label(*z.spec.size);
    k.key = z.place.header.key;
    k.results = z.place.results;
    k.resumed = z.resumed;
    k.evaluations = z.outcomes.size();
    k.new_evaluations = z.outcomes.size() > z.resumed ? z.outcomes.size() - z.resumed : 0;
    k.report = z.report;
    k.failed = std::find(failed.begin(), failed.end(), z.label) != failed.end();
    if (i < entries.size()) {
      k.winner = entries[i].info.winner;
      k.verified = entries[i].verified;
      k.not_verified = entries[i].not_verified;
    }
    result.keys.push_back(std::move(k));
  }
}

// The header entry of size `z`, its winner crowned from its stored results (as --cached reads
// them) and where that winner ran and verified; nullopt, having said why, when it has none.
std::optional<SizeHeaderEntry> sized_entry(const Tuning& t, const Spec& spec, const std::vector<SizeState>& states,
                                           const SizeState& z, const std::set<Config>& excluded) {
  SizeHeaderEntry e = size_entry(spec.sizes, z.index, spec.defaults);
  const ResultsFile stored = read_results(z.place.results, spec.space);
  e.info = stored_header_info(z.spec, stored, spec.strategy, spec.seed, z.place.results);
  e.info.winner = crowned(z, excluded);
  if (!e.info.winner) {
    t.err() << t.request.command << ": " << z.label << ": no configuration ran and verified at this size and is "
            << "usable at every other (" << counted(stored.outcomes.size(), "evaluation") << " in "
            << z.place.results.string()
            << "); no header written\n";
    return std::nullopt;
  }
  e.config = e.info.winner->config;
  for (const auto& other : states) {  // where the winner ran and verified
    const std::string at = spec.sizes.label(spec.sizes.sizes[other.index]);
    const Outcome* o = outcome_of(other.outcomes, e.config);
    if (!o) e.not_verified.push_back(at + " (not evaluated)");
    else if (is_success(o->status)) e.verified.push_back(at);
    else e.not_verified.push_back(at + " (" + to_string(o->status) + ")");
  }
  return e;
}

// The tuned header of a kernel with sizes, from every size's stored results (the same bytes
// after a tuning and from cached). Ending::no_result, having said why, when a size has no winner.
void write_sized_header(const Tuning& t, const Spec& spec, const std::vector<SizeState>& states,
                        KernelResult& result) {
  const std::set<Config> excluded = unusable_configs(states);
  std::vector<SizeHeaderEntry> entries;
  for (const auto& z : states) {
    std::optional<SizeHeaderEntry> e = sized_entry(t, spec, states, z, excluded);
    if (!e) {
      record_keys(states, entries, {}, result);
      result.ending = Ending::no_result;
      result.reason = z.label + ": no configuration ran and verified at this size and is usable at every other";
      return;
    }
    entries.push_back(std::move(*e));
  }
  try {
    result.header_text = render_sized_header(spec.space, spec.sizes.names, entries, header_info(spec, "tuned"));
    result.header_changed = write_file_if_changed(result.header, result.header_text);
  } catch (const std::exception& e) {
    std::string kept = "evaluations of its " + std::to_string(states.size()) + " sizes are kept in their results";
    for (std::size_t i = 0; i < states.size(); ++i) kept += (i ? ", " : " ") + states[i].place.results.string();
    header_not_written(t, spec, e, kept, result);
    record_keys(states, entries, {}, result);
    return;
  }
  for (const auto& e : entries)
    t.out() << "[adaexplore] " << spec.name << ": " << e.size << ": best " << e.info.winner->label << " "
            << *e.info.winner->objective << " ms" << std::endl;
  t.out() << "[adaexplore] " << spec.name << ": " << counted(entries.size(), "size") << "; header "
          << result.header.string()
          << (result.header_changed ? " written" : " unchanged") << std::endl;
  record_keys(states, entries, {}, result);
  result.ending = Ending::header_written;
}

// The tuning of every size, its state kept across the passes: first tunings in order, the
// verification rounds, then each size's profile and report.
class SizedRun {
 public:
  SizedRun(const Tuning& t, const Spec& spec)
      : t_(t), spec_(spec), later_(spec.sizes.later_budget(spec.budget_evaluations)) {}

  KernelResult run();

 private:
  void read_states();
  void read_stored_sizes();
  void model_transfer(std::size_t i, KeyExtras& extras) const;
  bool cached_winners(KernelResult& result) const;
  void say_order(const std::vector<std::size_t>& order) const;
  std::vector<const std::vector<Outcome>*> others_of(std::size_t i) const;
  void tune_in_order(const std::vector<std::size_t>& order);
  void tune_size(SizeState& z, const Spec& s, const KeyExtras& extras, const Tuning& pass);
  bool answer_from_results(SizeState& z, const Spec& s, const KeyExtras& extras, const Tuning& pass);
  void mark_failed(const SizeState& z);
  void verify_winners();
  void finish_sizes();

  const Tuning& t_;
  const Spec& spec_;
  std::size_t later_;
  std::vector<SizeState> states_;  // in declared order
  std::vector<std::string> failed_;
  /// With a database and Request::size_transfer model: the evaluations stored there of the
  /// kernel's sizes this spec does not declare (read_stored_sizes), with their sizes' labels.
  std::vector<StrategyOptions::SizedOutcome> stored_sizes_;
  std::vector<std::string> stored_labels_;
};

// Every size's key and stored outcomes (one backend answers for the key's parts: no session).
void SizedRun::read_states() {
  const Request& r = t_.request;
  const auto header_path = header_path_of(spec_, r);
  const std::unique_ptr<Backend> backend = local_backend(size_spec(spec_, 0), t_.devices);
  const nlohmann::json includes = included_headers(r, *backend, header_path);
  for (std::size_t i = 0; i < spec_.sizes.sizes.size(); ++i) {
    SizeState z;
    z.index = i;
    z.spec = size_spec(spec_, i);
    z.label = spec_.name + " [" + spec_.sizes.label(*z.spec.size) + "]";
    z.place = key_place(r, z.spec, *backend, includes, spec_.sizes.slug(*z.spec.size));
    if (std::filesystem::exists(z.place.results) && std::filesystem::file_size(z.place.results) > 0 &&
        !(r.database.empty() ? r.fresh : (r.retune || r.fresh))) {
      const ResultsFile stored = read_results(z.place.results, spec_.space);
      if (stored.header.key == z.place.header.key) {
        z.outcomes = stored.outcomes;
        z.place.header.started = stored.header.started;
        z.place.header.size_start = stored.header.size_start;  // how its tuning started
      }
    }
    z.resumed = z.outcomes.size();
    // The budget of a size with results follows how it started (the results' header line,
    // "size_start"), so a resumed size goes on to its budget, a raised BUDGET or SIZE_BUDGET
    // resumes the sizes it applies to, and the header states it.
    if (z.place.header.size_start == "transfer") z.spec.budget_evaluations = later_;
    z.place.header.budget = z.spec.budget_evaluations;
    states_.push_back(std::move(z));
  }
}

// With a tuning database (Request::size_transfer model): the kernel's sizes stored there that the
// spec no longer declares, of the same spec, sources, toolchain and device (their key parts equal
// this spec's but for "size"), for the performance model of how time moves with the size. A
// file that cannot be read, or whose records are outside this space (not expected: the same
// spec), is skipped with a warning.
void SizedRun::read_stored_sizes() {
  if (t_.request.database.empty() || t_.request.size_transfer != SizeTransferMode::model || states_.empty()) return;
  nlohmann::json ours = states_.front().place.header.key_parts;
  ours.erase("size");
  std::vector<std::string> problems;
  const std::vector<StoredKey> keys = stored_keys(t_.request.database, spec_.name, &problems);
  for (const auto& p : problems) t_.err() << "[adaexplore] warning: size transfer skips " << p << "\n";
  for (const StoredKey& k : keys) {
    nlohmann::json theirs = k.raw.header.key_parts;
    const nlohmann::json size = theirs.value("size", nlohmann::json());
    theirs.erase("size");
    ProblemSize ps;
    for (const std::string& name : spec_.sizes.names)
      if (size.is_object() && size.contains(name) && size[name].is_number_integer())
        ps.values.push_back(size[name].get<long long>());
    if (theirs != ours || ps.values.size() != spec_.sizes.names.size() ||
        std::find(spec_.sizes.sizes.begin(), spec_.sizes.sizes.end(), ps) != spec_.sizes.sizes.end())
      continue;
    try {
      for (Outcome& o : results_from_raw(k.raw, k.file, spec_.space).outcomes)
        stored_sizes_.push_back({std::move(o), ps.values, {}});
      stored_labels_.push_back(spec_.sizes.label(ps));
    } catch (const std::exception& e) {  // records outside this space: not the same kernel after all
      t_.err() << "[adaexplore] warning: size transfer skips " << k.file.string() << ": " << e.what() << "\n";
    }
  }
}

// The model's transfer for size `i` (Request::size_transfer model): every other size's outcomes
// with its size, the declared sizes' nearest first, then the database's other sizes.
void SizedRun::model_transfer(std::size_t i, KeyExtras& extras) const {
  std::vector<std::size_t> others;
  for (std::size_t k = 0; k < states_.size(); ++k)
    if (k != i && !states_[k].outcomes.empty()) others.push_back(k);
  std::vector<std::string> labels;
  for (std::size_t k : nearest_first(spec_.sizes.sizes, i, others)) {
    for (const Outcome& o : states_[k].outcomes) extras.transfer.push_back({o, spec_.sizes.sizes[k].values, {}});
    labels.push_back(spec_.sizes.label(spec_.sizes.sizes[k]));
  }
  extras.transfer.insert(extras.transfer.end(), stored_sizes_.begin(), stored_sizes_.end());
  labels.insert(labels.end(), stored_labels_.begin(), stored_labels_.end());
  for (const std::string& l : labels) extras.transfer_sizes += (extras.transfer_sizes.empty() ? "" : "; ") + l;
}

// cached: every size needs a stored success; false, having said which lacks one, otherwise.
bool SizedRun::cached_winners(KernelResult& result) const {
  for (const auto& z : states_)
    if (!crown(z.outcomes)) {
      t_.err() << t_.request.command << " --cached: " << z.label << ": the tuning database "
               << t_.request.database.string() << " holds no successful result for key "
               << z.place.header.key.substr(0, 16) << "; nothing evaluated, no header written\n";
      result.ending = Ending::no_result;
      result.reason = z.label + ": the tuning database holds no successful result for its key";
      record_keys(states_, {}, {}, result);
      return false;
    }
  return true;
}

void SizedRun::say_order(const std::vector<std::size_t>& order) const {
  t_.out() << "[adaexplore] " << spec_.name << ": " << counted(states_.size(), "problem size") << ", in this order:";
  for (std::size_t k = 0; k < order.size(); ++k)
    t_.out() << (k ? "; " : " ") << spec_.sizes.label(spec_.sizes.sizes[order[k]]);
  t_.out() << " (budget " << spec_.budget_evaluations
           << " for a size tuned while no other size has a successful result, " << later_
           << " for each other, from the others' evidence)" << std::endl;
}

// The other sizes with outcomes, nearest first.
std::vector<const std::vector<Outcome>*> SizedRun::others_of(std::size_t i) const {
  std::vector<std::size_t> others;
  for (std::size_t k = 0; k < states_.size(); ++k)
    if (k != i && !states_[k].outcomes.empty()) others.push_back(k);
  std::vector<const std::vector<Outcome>*> out;
  for (std::size_t k : nearest_first(spec_.sizes.sizes, i, others)) out.push_back(&states_[k].outcomes);
  return out;
}

void SizedRun::mark_failed(const SizeState& z) {
  if (std::find(failed_.begin(), failed_.end(), z.label) == failed_.end()) failed_.push_back(z.label);
}

// A size whose budget is spent and that has nothing to verify is answered from its results,
// without a backend: true when it was.
bool SizedRun::answer_from_results(SizeState& z, const Spec& s, const KeyExtras& extras, const Tuning& pass) {
  if (z.outcomes.size() < s.budget_evaluations || !extras.warm_start.empty() || pass.request.fresh ||
      pass.request.retune)
    return false;
  t_.out() << "[adaexplore] " << z.label << ": done (budget), " << z.outcomes.size()
           << " evaluations (0 new); results in " << z.place.results.string() << std::endl;
  if (!crown(z.outcomes)) {
    t_.err() << t_.request.command << ": " << z.label
             << ": no configuration compiled, ran and verified among the " << z.outcomes.size()
             << " evaluations of its spent budget in " << z.place.results.string() << " (first failure, "
             << z.outcomes.front().label << ": " << truncate_middle(z.outcomes.front().message, 400) << ")\n";
    mark_failed(z);
  }
  return true;
}

// One size's tuning (a backend of its own, released after).
void SizedRun::tune_size(SizeState& z, const Spec& s, const KeyExtras& extras, const Tuning& pass) {
  if (answer_from_results(z, s, extras, pass)) return;
  const std::unique_ptr<Backend> backend = tuning_backend(t_, s);
  TuneReport report;
  std::string reason;
  if (!tune_key(pass, s, *backend, z.place, extras, z.label, report, reason)) {
    mark_failed(z);
    const ResultsFile stored = read_results(z.place.results, spec_.space);  // what it recorded
    z.outcomes = stored.header.key == z.place.header.key ? stored.outcomes : std::vector<Outcome>{};
    return;
  }
  z.outcomes = report.outcomes;
}

// Each size in tuning order, from the others' evidence (transfer). fresh and retune apply here,
// once per size; profiles and reports wait for the end.
void SizedRun::tune_in_order(const std::vector<std::size_t>& order) {
  Tuning deferred = t_;
  deferred.defer_finish = true;
  for (std::size_t i : order) {
    SizeState& z = states_[i];
    if (z.outcomes.empty() || z.place.header.size_start.empty()) {
      const bool others = std::any_of(states_.begin(), states_.end(), [&](const SizeState& o) {
        return o.index != i && crown(o.outcomes).has_value();
      });
      z.place.header.size_start = others ? "transfer" : "cold";
      z.spec.budget_evaluations = others ? later_ : spec_.budget_evaluations;
      z.place.header.budget = z.spec.budget_evaluations;
    }
    KeyExtras extras;
    const SizeTransfer tr = transfer_from(others_of(i), spec_.sizes.warm_start, z.outcomes);
    if (z.outcomes.size() < z.spec.budget_evaluations && tr.sources > 0) {
      t_.out() << "[adaexplore] " << z.label << ": transfer: " << tr.describe() << std::endl;
      extras.warm_start = tr.warm_start;
      extras.prior = tr.prior;
      if (t_.request.size_transfer == SizeTransferMode::model)
        model_transfer(i, extras);
      else
        t_.out() << "[adaexplore] " << z.label << ": start: " << counted(tr.warm_start.size(), "configuration")
                 << ", the other sizes' best (--size-transfer winners)" << std::endl;
    }
    tune_size(z, z.spec, extras, deferred);
  }
}

// Every size's winner at every size: a winner unusable at another size (a tail bug: wrong there)
// is crowned nowhere and the next best is verified in the next round; one faster at a size than
// that size's own winner takes its place there. Each round evaluates only configurations not
// evaluated at that size before, so the rounds end; the cap guards against a round whose
// evaluations are cut short (a time limit).
void SizedRun::verify_winners() {
  Tuning pass = t_;
  pass.defer_finish = true;
  pass.request.fresh = pass.request.retune = false;
  for (std::size_t round = 0; round < 2 * states_.size() + 2; ++round) {
    bool evaluated = false;
    std::vector<Config> winners;
    const std::set<Config> excluded = unusable_configs(states_);
    for (const auto& z : states_)
      if (auto best = crowned(z, excluded)) winners.push_back(best->config);
    for (auto& z : states_) {
      KeyExtras extras;
      extras.database_warm_start = false;
      for (const auto& w : winners)
        if (!outcome_of(z.outcomes, w) &&
            std::find(extras.warm_start.begin(), extras.warm_start.end(), w) == extras.warm_start.end())
          extras.warm_start.push_back(w);
      if (extras.warm_start.empty()) continue;
      t_.out() << "[adaexplore] " << z.label << ": verifying " << counted(extras.warm_start.size(), "winner")
               << " of other sizes at this size"
               << std::endl;
      Spec verify = z.spec;
      verify.budget_evaluations = z.outcomes.size() + extras.warm_start.size();
      const std::size_t before = z.outcomes.size();
      tune_size(z, verify, extras, pass);
      evaluated = evaluated || z.outcomes.size() > before;
    }
    if (!evaluated) break;
  }
}

// Each size's profile (request.profile: a backend of its own, released after) and report, with
// the winner the header crowns there.
void SizedRun::finish_sizes() {
  const std::set<Config> excluded = unusable_configs(states_);
  for (auto& z : states_) {
    const std::optional<Outcome> winner = crowned(z, excluded);
    std::unique_ptr<Backend> backend;
    if (t_.request.profile && winner) backend = local_backend(z.spec, t_.devices);  // this process's GPU
    z.report = finish_key(t_, z.spec, backend.get(), z.place, z.label, winner, z.outcomes, excluded);
  }
}

KernelResult SizedRun::run() {
  KernelResult result;
  result.header = header_path_of(spec_, t_.request);
  read_states();
  if (t_.request.cached) {
    if (cached_winners(result)) write_sized_header(t_, spec_, states_, result);
    return result;
  }
  const std::vector<std::size_t> order = tuning_order(spec_.sizes.sizes);
  say_order(order);
  read_stored_sizes();
  tune_in_order(order);
  verify_winners();
  finish_sizes();
  if (!failed_.empty()) {
    t_.err() << t_.request.command << ": " << spec_.name << ": no header written: the tuning of";
    for (const auto& f : failed_) t_.err() << " " << f;
    t_.err() << " failed (above); the other sizes' results are kept and answer the next tuning\n";
    record_keys(states_, {}, failed_, result);
    result.ending = Ending::tuning_failed;
    result.reason = "the tuning of";
    for (const auto& f : failed_) result.reason += " " + f;
    result.reason += " failed";
    return result;
  }
  write_sized_header(t_, spec_, states_, result);
  return result;
}

}  // namespace

SizeHeaderEntry size_entry(const SizesSpec& sizes, std::size_t index, const Config& config) {
  SizeHeaderEntry e;
  e.size = sizes.label(sizes.sizes[index]);
  e.values = sizes.sizes[index].values;
  e.config = config;
  return e;
}

KernelResult configure_sizes(const Tuning& t, const Spec& spec) { return SizedRun(t, spec).run(); }

}  // namespace adaexplore
