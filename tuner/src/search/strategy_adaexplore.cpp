// `adaexplore`: the failure-driven, diversity-preserving search (method and sources in
// docs/search-method.md).
//
//  1. Space-filling start: a Latin hypercube over parameter indices (McKay, Beckman and Conover,
//     1979), each point repaired to the nearest valid configuration.
//  2. Then, per proposal, an operator; for the first kTakeTurnsUntil evaluations they take turns
//     (explore, local, recombine, evolve, one proposal each), after that a discounted-UCB bandit
//     (operator_bandit.hpp) picks one:
//       explore    random unseen valid configurations (explore_candidates draws, 768: the
//                  surrogate picks the best of a large random sample of the space),
//       local      one- and two-step index moves around the niche elites,
//       recombine  uniform crossover of two niche elites plus mutation,
//       probe      configurations just inside the boundaries the knowledge base learned,
//       evolve     `ga`'s generation operator (strategy_ga.cpp): parents by size-2 tournament
//                  from the 20 best successes, uniform crossover, random-value mutation;
//     the operator makes candidates and a random-forest surrogate of log(objective)
//     (random_forest.hpp, SMAC-style) ranks them by expected improvement, weighted by the
//     knowledge base's P(success) and soft preference, and damped near configurations proposed
//     and not yet observed (local penalization: this request's, and those still in flight);
//     `evolve`'s first usable child is taken as bred, unranked (its children ranked by the
//     surrogate did worse at 200/400 evaluations).
//     Likely failures are left out first (a probabilistic constraint, P(fail) <= delta, as in
//     Gelbart, Snoek and Adams, "Bayesian Optimization with Unknown Constraints", UAI 2014):
//     a candidate whose P(fail) exceeds delta is taken only when none of the operator's
//     candidates is at or below it (then the least likely to fail for `evolve`); delta is
//     `max_failure_probability` (0.5), for `local` `max_failure_probability_local` (0.8): a
//     step from an elite is where the best configurations sit, often next to failures, and with
//     0.5 there too the search lost 0.003 of its mean score at 400 evaluations on the Kernel
//     Tuner spaces where the thresholds matter (6 files, 50 seeds: 0.9986 -> 0.9955; with 0.8
//     for `local` 0.9986; notes: 2026-11-30 (failure-driven pipeline)).
//     Weighting alone let an unexplored value's large expected improvement outweigh a P(fail)
//     of 0.9: on the host failure space at budget 50, proposals with P(fail) >= 0.7 were a
//     third of those after the start and failed 70 % of the time (docs/failure-learning-
//     benchmark.md).
//     An operator that makes no usable candidate is credited 0 and the bandit chooses again.
//     The budget's last tenth favours `local`.
//  3. Population with niching: the elites are the best successes kept at least `niche_radius`
//     apart (clearing, Petrowski 1996), so structurally different configurations survive.
//  4. Failure-driven: the knowledge base (knowledge_base.hpp) learns from every failure; known
//     infeasible candidates are never proposed, likely failures are ranked down, and failures
//     feed the surrogate's feasibility weight rather than being wasted budget.
//  5. The performance model (learn/performance_model.hpp): the surrogate above is its random forest
//     on indices and alignment; with option behaviour, or when the tuning has other sizes'
//     evaluations (StrategyOptions::transfer), also on the behavioural features
//     (learn/features.hpp: threads per block, blocks, work per thread, waves, ...; ln size). A
//     later size starts from what the model fitted on the other sizes predicts best there
//     (predicted_start), and its surrogate also fits the other sizes' successes, each size's
//     ln-time offset fitted (PerformanceModel::Scale::per_size) so that predictions are this
//     size's absolute times. What the model believed of each proposal is belief() (extra.model).
//  Moves and mutations change only the parameters that have more than one value (a recorded
//  space often pins some, e.g. gemm's KWG or conv's filter size): a step on a pinned parameter
//  would make no new candidate, and the mutation rate is 1 / (number of free parameters).
// Options: initial (start size; default 8), batch (proposals per call,
// default as asked), candidates (per proposal of local, recombine and evolve, 96; probe a
// quarter), explore_candidates (per proposal of explore, 768: 96 before 2026-12-01 (explore_candidates); paired over
// 100 seeds on the 9 recorded files, 768 scored +0.010 +- 0.005 at 25 evaluations and
// +0.007 +- 0.004 at 50; 3072 no better; 256 for the other operators as well worse; notes:
// 2026-12-01 (explore_candidates)), niches (8), niche_radius (0.12), trees (24),
// knowledge_base (true; false: the same search without the knowledge base, see below),
// max_failure_probability (0.5: a candidate more likely to fail than to succeed is left out while
// the operator has another; a number in (0, 1], 1 leaves none out), max_failure_probability_local
// (0.8: the same for `local`'s steps from the elites), alignment (true: the surrogate's
// power-of-two alignment features and the start's aligned values, make_alignment_features();
// false: indices only, the search before 2026-11-30 (alignment features)), status_test (true: the knowledge base's
// value rules also test a value's failure status, learned_rules.hpp (a); false: the value rules
// before 2026-12-01 (status test)), behaviour (false: the surrogate on indices and alignment;
// true: also the behavioural features, where the launch is declared; measured neutral on the 9
// recorded Kernel Tuner files, docs/model-benchmark.md), launch (a launch shape over the
// parameters for a replay without a spec), size_model (true: a later size starts from the model's
// predictions and its surrogate fits the other sizes too; false: the other sizes' winners, the
// search before 2026-12-06), start_kappa (0), start_winners (0.5), start_sizes (1: the start's
// model fits the nearest other size only; 0: all of them, the start before 2026-12-06's offsets
// fix; how configurations rank moves with the size, and the farther sizes taught the start an
// order that no longer holds: gemm +0.004 over 200 seeds, docs/model-benchmark.md),
// rank_evolve_below (0: evolve's
// children are never ranked; N: ranked by the surrogate below N evaluations), device_surrogate
// (false: another GPU's records, StrategyOptions::SizedOutcome::device, choose the start only;
// true: the surrogate fits them too, one ln-time offset per GPU: -0.010 +- 0.008 at 25
// evaluations over 10 GPU pairs and 30 seeds, docs/warm-start-benchmark.md).
//
// knowledge_base = false switches the failure-driven part off, for ablation: the knowledge base
// observes nothing, so no candidate is filtered as known infeasible, none is ranked down by
// P(fail) or soft preference, the `probe` operator is not offered, and the start's Latin
// hypercube points are only moved to the nearest unseen configuration that satisfies the stated
// constraints. A failure then only counts as the worst fitness (never an elite, reward 0).
#include <algorithm>
#include <cmath>
#include <deque>
#include <iterator>
#include <limits>
#include <map>
#include <numeric>
#include <set>
#include <unordered_map>

#include "learn/knowledge_base.hpp"
#include "learn/performance_model.hpp"
#include "search/operator_bandit.hpp"
#include "search/random_forest.hpp"
#include "search/strategy.hpp"

namespace adaexplore {
namespace {

enum Operator : std::size_t {
  kExplore = 0, kLocal = 1, kRecombine = 2, kProbe = 3, kEvolve = 4, kInitial = 5
};

// `evolve` breeds from the best this many successes (ga's default population).
constexpr std::size_t kEvolvePopulation = 20;

// Until this many evaluations are done or pending, the operators take turns, one proposal each.
// The bandit is credited only when outcomes arrive, and a replay asks for 8 proposals at a time
// (a real tuning for one per free compile slot: as many as the cores at the start), so the
// bandit would give each early batch to one operator (at budget 25:
// the start, 8 explore, 8 local, 1 recombine); taking turns mixes every operator into each
// batch. Search-quality benchmark, 30 seeds, start of at least 8 in both (notes: search6):
// 0.811 / 0.882 / 0.950 / 0.990 / 0.998 -> 0.819 / 0.908 / 0.952 / 0.987 / 0.999 at budgets
// 25 / 50 / 100 / 200 / 400 (200 and 400 within noise).
constexpr std::size_t kTakeTurnsUntil = 64;
constexpr std::size_t kTurnOrder[] = {kExplore, kLocal, kRecombine, kEvolve};

// Every option the strategy reads (docs/search-method.md, Options); any other key is an error.
constexpr const char* kOptions[] = {
    "initial", "batch", "candidates", "explore_candidates", "niches", "niche_radius", "trees",
    "knowledge_base", "max_failure_probability", "max_failure_probability_local", "alignment",
    "status_test", "behaviour", "launch", "size_model", "start_kappa", "rank_evolve_below", "start_winners", "start_sizes",
    "device_surrogate"};

struct Scored {
  Config config;
  double score = -1;
};

double normal_pdf(double z) { return std::exp(-0.5 * z * z) / std::sqrt(2.0 * M_PI); }
double normal_cdf(double z) { return 0.5 * std::erfc(-z / std::sqrt(2.0)); }

class AdaExploreStrategy : public Strategy {
 public:
  AdaExploreStrategy(const Space& space, const StrategyOptions& options)
      : space_(space),
        sampler_(space, options.seed),
        kb_(space, knowledge_base_options(options.options)),
        rng_(options.seed * 0x9E3779B97F4A7C15ull + 1),
        use_kb_(bool_option(options.options, "knowledge_base", true)), arms_(operator_arms(use_kb_)),
        bandit_(operator_names(arms_)), budget_(options.budget) {
    const auto& o = options.options;
    if (use_kb_ && options.static_check) kb_.declare(options.static_check);
    if (use_kb_)
      for (const auto& o : options.prior) kb_.observe(o);
    for (std::size_t p = 0; p < space_.dimension(); ++p)
      if (space_.parameters()[p].values.size() > 1) free_.push_back(p);
    alignment_.assign(space_.dimension(), {});
    if (bool_option(o, "alignment", true)) make_alignment_features();
    // 8, one whole replay batch, at every budget (docs/search-method.md, 2026-12-01 (space-filling start of 8)). Fewer did
    // worse (4 at budget 25: 0.796 against 0.811, 30 seeds, notes: search6; 6 against 8, 300
    // seeds paired: -0.0023 +- 0.0036, -0.0036 +- 0.0025, -0.0033 +- 0.0016 at 25, 50, 100).
    // More did too: until 2026-12-01 (space-filling start of 8) the start was budget/6 points clamped to [8, 16], so 16 from
    // budget 96 on, and the start's points after the first 8 fail as often as random ones (the
    // knowledge base's P(fail) does not yet tell them apart: 21 % of them failed on
    // convolution/RTX_2080_Ti at 100 evaluations, against 2.4 % of the operators' proposals),
    // while the surrogate-ranked operators find better configurations with them (8 instead of
    // 16: +0.0043 +- 0.0017 at 100 evaluations, 300 seeds paired on the 9 recorded files; at 200
    // -0.0003 +- 0.0009).
    initial_ = count_option(o, "initial", 8, 0);
    batch_ = count_option(o, "batch", 0, 0);
    candidates_ = count_option(o, "candidates", 96, 1);
    explore_candidates_ = count_option(o, "explore_candidates", 768, 1);
    niches_ = count_option(o, "niches", 8, 1);
    if (o.contains("niche_radius")) {
      const auto& r = o["niche_radius"];
      if (!(r.is_number() && r.get<double>() >= 0 && r.get<double>() <= 1))
        throw std::invalid_argument(
            "adaexplore: option niche_radius must be a number in [0, 1] (a normalized index "
            "distance), not " + r.dump());
      niche_radius_ = r.get<double>();
    }
    max_failure_ = probability_option(o, "max_failure_probability", 0.5);
    max_failure_local_ = probability_option(o, "max_failure_probability_local", 0.8);
    RandomForest::Options fo;
    fo.trees = static_cast<int>(count_option(o, "trees", 24, 1));
    forest_options_ = fo;
    features_ = options.features;
    if (o.contains("launch") && !(features_ && features_->declared())) features_ = launch_option(space_, o["launch"]);
    size_ = options.size;
    transfer_ = options.transfer;
    for (const auto& t : transfer_)
      if (!t.device.empty() && std::find(devices_.begin(), devices_.end(), t.device) == devices_.end())
        devices_.push_back(t.device);
    size_model_ = bool_option(o, "size_model", true);
    rank_evolve_below_ = count_option(o, "rank_evolve_below", 0, 0);
    start_sizes_ = count_option(o, "start_sizes", 1, 0);
    device_surrogate_ = bool_option(o, "device_surrogate", false);
    if (o.contains("start_winners")) {
      const auto& w = o["start_winners"];
      if (!(w.is_number() && w.get<double>() >= 0 && w.get<double>() <= 1))
        throw std::invalid_argument("adaexplore: option start_winners must be a number in [0, 1] (a share of the "
                                    "start), not " + w.dump());
      start_winners_ = w.get<double>();
    }
    if (o.contains("start_kappa")) {
      const auto& k = o["start_kappa"];
      if (!(k.is_number() && k.get<double>() >= 0 && k.get<double>() <= 10))
        throw std::invalid_argument("adaexplore: option start_kappa must be a number in [0, 10], not " + k.dump());
      start_kappa_ = k.get<double>();
    }
    // The surrogate learns on the behavioural features with option behaviour, and always when it
    // also fits the other sizes' evaluations (their sizes differ only there).
    const bool other_sizes = std::any_of(transfer_.begin(), transfer_.end(), [this](const auto& t) {
      return usable_record(t) && (t.device.empty() || device_surrogate_);
    });
    const bool behaviour = bool_option(o, "behaviour", false) || (size_model_ && other_sizes);
    model_ = PerformanceModel(space_, behaviour ? features_.get() : nullptr, alignment_, fo);
    for (const auto& [key, value] : o.items())
      if (std::find(std::begin(kOptions), std::end(kOptions), key) == std::end(kOptions)) {
        std::string known;
        for (const char* name : kOptions) known += (known.empty() ? "" : ", ") + std::string(name);
        throw std::invalid_argument("adaexplore: unknown option '" + key + "' (options: " + known + ")");
      }
  }

  std::vector<Config> propose(std::size_t count) override {
    std::vector<Config> out;
    const std::size_t n = batch_ ? std::min(count, batch_) : count;
    refit_if_needed();
    while (out.size() < n) {
      auto [config, op] = next();
      if (!config) break;
      sampler_.mark(*config);
      pending_.push_back({*config, op});
      remember_belief(*config, model_, nullptr);
      out.push_back(*config);
    }
    return out;
  }

  nlohmann::json belief(const Config& config) const override {
    const auto it = beliefs_.find(config);
    return it == beliefs_.end() ? nlohmann::json(nullptr) : it->second;
  }

  // The rank of a configuration in predicted_start(): a lower confidence bound of its predicted
  // log time, mean - start_kappa_ x the trees' spread (default 0: the mean alone).
  double start_score(const RandomForest::Prediction& p) const { return p.mean - start_kappa_ * p.stdev; }

  // A later size's start, or a new GPU's (option size_model): the performance model fitted on the
  // successes of the start_sizes (1) other sizes nearest in ln volume (0: all; per-size offsets,
  // with the behavioural features at each size; another GPU's records at a size count as a size of
  // their own, performance_model.hpp) ranks every valid configuration at this size (all when the
  // space was enumerated, else 4096 random ones) not known to fail, those likely to fail
  // (P(fail) > max_failure_probability, from the knowledge base that observed the other sizes'
  // size-independent failures, and more than 0.05 above the lowest P(fail) of the pool) after all
  // the others: a knowledge base that has seen a few such failures and no success yet finds every
  // configuration likely to fail (on an H100, 2 failures at 512^3 left the gemm example's start at
  // 1024^3 without a single pick of the model, 2026-12-06), those in the failures' region more so,
  // so it orders the picks rather than leaving them all out. The start alternates the
  // predicted fastest with the winners (the other sizes' or GPUs' best), start_winners (0.5) of it
  // the winners'; none of `exclude`.
  std::vector<Config> predicted_start(std::size_t count, const std::vector<Config>& winners,
                                      const std::vector<Config>& exclude) override {
    std::vector<PerformanceModel::Sample> samples;
    for (const auto& t : transfer_)
      if (usable_record(t)) samples.push_back(sample_of(t));
    if (start_sizes_ > 0 && !samples.empty()) samples = nearest_sizes(samples, start_sizes_);
    if (!size_model_ || samples.size() < 2 || count == 0) return {};
    PerformanceModel model(space_, features_.get(), alignment_, forest_options_);
    // Per-size offsets: this size has no evaluations yet, so its offset is scaled from the other
    // sizes' (performance_model.hpp); it is the same for every configuration, so the ranking
    // is that of the relative predictions, and the beliefs recorded are absolute ms.
    model.fit(samples, rng_, PerformanceModel::Scale::per_size);
    std::vector<Config> pool;
    if (const auto* all = sampler_.enumerated())
      pool = *all;
    else
      for (int i = 0; i < 4096; ++i)
        if (auto c = random_valid()) pool.push_back(*c);
    std::vector<std::pair<double, const Config*>> p_fail;
    double least = 1;
    for (const Config& c : pool)
      if (usable(c)) {
        p_fail.emplace_back(failure_probability(c), &c);
        least = std::min(least, p_fail.back().first);
      }
    // Likely to fail: above max_failure_probability and clearly above the least likely to fail
    // (a knowledge base without a success finds all likely to fail, those in a failure region more so).
    const double likely = std::max(max_failure_, least + 0.05);
    std::vector<std::pair<std::pair<bool, double>, const Config*>> ranked;  // (likely to fail, score)
    for (const auto& [p, c] : p_fail) ranked.push_back({{p > likely, start_score(model.predict(*c, &size_))}, c});
    std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    const char* source = devices_.empty() ? "other sizes" : size_.empty() ? "other GPUs" : "other sizes or GPUs";
    // The model's picks and the winners alternate, the model's first; start_winners_ of the
    // start (rounded down) is the winners' share while they last.
    const std::size_t from_winners = std::min(winners.size(), static_cast<std::size_t>(start_winners_ * count));
    std::vector<Config> out;
    std::unordered_set<Config, ConfigHash> taken(exclude.begin(), exclude.end());
    auto take = [&](const Config& c) { return taken.insert(c).second && sampler_.mark(c); };
    std::size_t r = 0, w = 0, taken_winners = 0;
    while (out.size() < count && (r < ranked.size() || (taken_winners < from_winners && w < winners.size()))) {
      const bool winner = taken_winners < from_winners && w < winners.size() &&
                          (out.size() % 2 == 1 || r == ranked.size());
      if (winner) {
        const Config& c = winners[w++];
        if (!take(c)) continue;  // the model picked it already, or excluded
        ++taken_winners;
        remember_belief(c, model, source);
        out.push_back(c);
      } else {
        const auto& [score, c] = ranked[r++];
        if (!take(*c)) continue;  // a repeat in a sampled pool, a winner taken, or excluded
        remember_belief(*c, model, source);
        out.push_back(*c);
      }
    }
    return out;
  }

  void observe(const Outcome& outcome) override {
    sampler_.mark(outcome.config);
    if (use_kb_) kb_.observe(outcome);
    ++observed_;
    const bool success = is_success(outcome.status) && outcome.objective && *outcome.objective > 0;
    double reward = 0;
    if (success) {
      const double y = std::log(*outcome.objective);
      reward = y < best_ ? 1.0 : (rank_of(y) < 5 ? 0.3 : 0.0);
      best_ = std::min(best_, y);
      successes_.push_back({outcome.config, y});
      ++unfitted_;
    }
    const auto it = std::find_if(pending_.begin(), pending_.end(),
                                 [&](const Pending& p) { return p.config == outcome.config; });
    if (it != pending_.end()) {
      if (it->op != kInitial) bandit_.credit(arm_of(it->op), reward);
      pending_.erase(it);
    }
  }

 private:
  struct Success {
    Config config;
    double log_objective;
  };

  // The samples of the `count` other sizes nearest to this one in ln volume (the product of the
  // size's values); sizes as near as the last one kept are kept too.
  std::vector<PerformanceModel::Sample> nearest_sizes(const std::vector<PerformanceModel::Sample>& samples,
                                                      std::size_t count) const {
    auto ln_volume = [](const std::vector<long long>& z) {
      double v = 0;
      for (long long x : z) v += std::log(static_cast<double>(std::max<long long>(1, x)));
      return v;
    };
    std::map<std::pair<int, std::vector<long long>>, double> distance;  // per (device, size)
    for (const auto& s : samples)
      distance.emplace(std::make_pair(s.device, s.size), std::abs(ln_volume(s.size) - ln_volume(size_)));
    std::vector<double> d;
    for (const auto& [group, x] : distance) d.push_back(x);
    std::sort(d.begin(), d.end());
    const double cut = d[std::min(count, d.size()) - 1] + 1e-9;
    std::vector<PerformanceModel::Sample> out;
    for (const auto& s : samples)
      if (distance.at(std::make_pair(s.device, s.size)) <= cut) out.push_back(s);
    return out;
  }

  // Another size's or GPU's record the model can learn from: a success with its objective, at a
  // size of as many values as this one's, and either on another GPU or at a known size (a trace of
  // this GPU that does not say its size is left out: the model could not tell its times from this
  // size's).
  bool usable_record(const StrategyOptions::SizedOutcome& t) const {
    return is_success(t.outcome.status) && t.outcome.objective && *t.outcome.objective > 0 &&
           t.size.size() == size_.size() && (!t.device.empty() || !t.size.empty());
  }

  // A record as the performance model's sample: other GPUs numbered from 1 in the order they
  // first appear in the transfer records (PerformanceModel::Sample::device).
  PerformanceModel::Sample sample_of(const StrategyOptions::SizedOutcome& t) const {
    int device = 0;
    if (!t.device.empty()) {
      const auto it = std::find(devices_.begin(), devices_.end(), t.device);
      device = 1 + static_cast<int>(it - devices_.begin());
    }
    return {t.outcome.config, t.size, std::log(*t.outcome.objective), device};
  }

  // The other sizes' successes for the surrogate, with their own sizes and times: the model
  // (PerformanceModel::Scale::per_size) fits each size's ln-time offset from the configurations
  // measured at several sizes, among them this size's own evaluations, and adds this size's
  // offset back, so that its predictions are this size's absolute times, as expected_improvement
  // compares them with best_. Sizes without a configuration in common with this size's
  // evaluations are left out (their offset would be a guess). What carries is the shape of the
  // landscape; this size's own evaluations decide where they disagree, since they are the only
  // samples at this size's features. False when none was added.
  bool add_transfer_samples(std::vector<PerformanceModel::Sample>& samples) const {
    if (transfer_.empty() || successes_.empty()) return false;
    std::unordered_map<Config, double, ConfigHash> own;
    for (const auto& s : successes_) own.emplace(s.config, s.log_objective);
    std::set<std::pair<std::string, std::vector<long long>>> shared;  // (device, size) groups with a
                                                                      // configuration in common with this size's
    for (const auto& t : transfer_)
      if (usable_record(t) && (t.size != size_ || !t.device.empty()) && own.count(t.outcome.config))
        shared.emplace(t.device, t.size);
    bool added = false;
    for (const auto& t : transfer_) {
      if (!usable_record(t) || !shared.count({t.device, t.size})) continue;
      if (!t.device.empty() && !device_surrogate_) continue;
      samples.push_back(sample_of(t));
      added = true;
    }
    return added;
  }

  // What `model` predicts for `config` at this size (ms, with its 68 % interval from the trees'
  // spread; absolute times, performance_model.hpp) and the knowledge base's P(fail), kept for
  // belief(). `source`: "other sizes" for a later size's start (the model fitted on the other
  // sizes alone; its scale at this size is extrapolated from theirs), null for the surrogate.
  void remember_belief(const Config& config, const PerformanceModel& model, const char* source) {
    nlohmann::json b = nlohmann::json::object();
    if (!model.empty()) {
      const auto p = model.predict(config, &size_);
      b["predicted_ms"] = std::exp(p.mean);
      b["interval_ms"] = {std::exp(p.mean - p.stdev), std::exp(p.mean + p.stdev)};
      if (source) b["source"] = source;
    }
    if (use_kb_) b["p_fail"] = failure_probability(config);
    if (!b.empty()) beliefs_[config] = std::move(b);
  }

  // Option "launch" (replays without a spec: a Kernel Tuner cache): the launch shape as the spec's
  // "launch" section gives it, over the space's parameter names, plus "volume" (the problem's
  // element count, for work per thread) and "sm_count".
  static std::shared_ptr<const FeatureMap> launch_option(const Space& space, const nlohmann::json& l) {
    const std::string what =
        "adaexplore: option launch must be an object {\"block\": [exprs], \"grid\": [exprs], "
        "\"threads_per_block\": expr, \"dynamic_shared_bytes\": expr, \"volume\": number, \"sm_count\": "
        "integer} over the parameters' names";
    if (!l.is_object()) throw std::invalid_argument(what + ", not " + l.dump());
    FeatureContext context;
    auto expr = [&](const nlohmann::json& e, const std::string& key) {
      if (!e.is_string()) throw std::invalid_argument(what + "; " + key + " is " + e.dump() + ", not an expression");
      try {
        return Expr::parse(e.get<std::string>(), space.names());
      } catch (const std::exception& x) {
        throw std::invalid_argument("adaexplore: option launch." + key + ": " + x.what());
      }
    };
    for (const auto& [key, v] : l.items()) {
      if (key == "block" || key == "grid") {
        if (!v.is_array() || v.empty() || v.size() > 3)
          throw std::invalid_argument(what + "; " + key + " must list 1 to 3 expressions, not " + v.dump());
        for (const auto& e : v) (key == "block" ? context.launch.block : context.launch.grid).push_back(expr(e, key));
      } else if (key == "threads_per_block") {
        context.launch.threads_per_block = expr(v, key);
      } else if (key == "dynamic_shared_bytes") {
        context.launch.dynamic_shared_bytes = expr(v, key);
      } else if (key == "volume") {
        if (!v.is_number() || v.get<double>() <= 0)
          throw std::invalid_argument(what + "; volume must be a positive number, not " + v.dump());
        context.volume = v.get<double>();
      } else if (key == "sm_count") {
        if (!v.is_number_integer() || v.get<long long>() < 1 || v.get<long long>() > 100000)
          throw std::invalid_argument(what + "; sm_count must be an integer from 1 to 100000, not " + v.dump());
        context.sm_count = v.get<int>();
      } else {
        throw std::invalid_argument(what + "; unknown key '" + key + "'");
      }
    }
    if (!context.launch.block.empty() && !context.launch.threads_per_block) {
      std::string product;
      for (const auto& e : context.launch.block) product += (product.empty() ? "(" : " * (") + e.text() + ")";
      context.launch.threads_per_block = Expr::parse(product, space.names());
    }
    return std::make_shared<const FeatureMap>(space, std::move(context));
  }

  std::size_t rank_of(double y) const {
    std::size_t better = 0;
    for (const auto& s : successes_) better += s.log_objective < y;
    return better;
  }

  static KnowledgeBaseOptions knowledge_base_options(const nlohmann::json& o) {
    KnowledgeBaseOptions k;
    k.rules.status_test = bool_option(o, "status_test", true);
    return k;
  }

  // A boolean option (knowledge_base, alignment, status_test): `fallback` unless given.
  static bool bool_option(const nlohmann::json& o, const std::string& key, bool fallback) {
    if (!o.contains(key)) return fallback;
    if (!o[key].is_boolean())
      throw std::invalid_argument("adaexplore: option " + key + " must be true or false, not " + o[key].dump());
    return o[key].get<bool>();
  }
  // A count option (initial, batch, candidates, explore_candidates, niches, trees): an integer of
  // at least `least`, `fallback` unless given.
  static std::size_t count_option(const nlohmann::json& o, const std::string& key,
                                  std::size_t fallback, std::size_t least) {
    if (!o.contains(key)) return fallback;
    const auto& v = o[key];
    constexpr std::size_t kMost = 1000000;
    if (!v.is_number_integer() || v.get<double>() < static_cast<double>(least) ||
        v.get<double>() > static_cast<double>(kMost))
      throw std::invalid_argument("adaexplore: option " + key + " must be an integer from " +
                                  std::to_string(least) + " to " + std::to_string(kMost) +
                                  ", not " + v.dump());
    return v.get<std::size_t>();
  }
  // A probability option (max_failure_probability, ..._local): a number in (0, 1], `fallback` unless given.
  static double probability_option(const nlohmann::json& o, const std::string& key, double fallback) {
    if (!o.contains(key)) return fallback;
    const auto& v = o[key];
    if (!v.is_number() || !(v.get<double>() > 0.0 && v.get<double>() <= 1.0))
      throw std::invalid_argument("adaexplore: option " + key +
                                  " must be a number in (0, 1] (a probability; 1 leaves no candidate out), not " +
                                  v.dump());
    return v.get<double>();
  }
  // The bandit's arms (operators) in arm order; `probe` needs the knowledge base.
  static std::vector<std::size_t> operator_arms(bool knowledge_base) {
    std::vector<std::size_t> arms = {kExplore, kLocal, kRecombine};
    if (knowledge_base) arms.push_back(kProbe);
    arms.push_back(kEvolve);
    return arms;
  }
  static std::vector<std::string> operator_names(const std::vector<std::size_t>& arms) {
    static const char* const names[] = {"explore", "local", "recombine", "probe", "evolve"};
    std::vector<std::string> out;
    for (std::size_t a : arms) out.push_back(names[a]);
    return out;
  }
  std::size_t arm_of(std::size_t op) const {
    return static_cast<std::size_t>(std::find(arms_.begin(), arms_.end(), op) - arms_.begin());
  }

  bool usable(const Config& c) const {
    return !sampler_.seen(c) && space_.satisfies(c) && !(use_kb_ && kb_.known_infeasible(c));
  }

  std::pair<std::optional<Config>, std::size_t> next() {
    if (observed_ + pending_.size() < initial_) {
      if (auto c = next_initial()) return {c, kInitial};
    }
    if (successes_.size() < 2) return {random_usable(), kExplore};
    if (observed_ + pending_.size() < kTakeTurnsUntil) {
      const std::size_t op = kTurnOrder[turn_++ % std::size(kTurnOrder)];
      const std::vector<Config> pool = candidates(op);
      if (auto c = op == kEvolve && !rank_evolve() ? first_usable(pool) : best_candidate(pool, op)) return {c, op};
    }
    // An operator that makes no usable candidate is credited 0 and the bandit chooses again
    // (an uncredited arm comes first, so one that never makes a candidate, e.g. `probe` before
    // the knowledge base learned a boundary, would otherwise hold the bandit for good).
    for (std::size_t tries = 0; tries < arms_.size(); ++tries) {
      const std::size_t arm = bandit_.choose(phase_bonus());
      const std::size_t op = arms_[arm];
      const std::vector<Config> pool = candidates(op);
      if (auto c = op == kEvolve && !rank_evolve() ? first_usable(pool) : best_candidate(pool, op)) return {c, op};
      bandit_.credit(arm, 0.0);
    }
    if (auto c = best_candidate(candidates(kExplore), kExplore)) return {c, kExplore};
    return {random_usable(), kExplore};
  }

  // `evolve`'s child as bred (as `ga` takes it), not ranked by the surrogate: ranking its
  // children by expected improvement lost what it adds at 200 and 400 evaluations. The first
  // usable child not likely to fail (P(fail) <= max_failure_probability); when every child is,
  // the least likely to fail.
  std::optional<Config> first_usable(const std::vector<Config>& pool) const {
    std::optional<Config> safest;
    double lowest = 2.0;
    for (const Config& c : pool) {
      if (!usable(c)) continue;
      const double p = failure_probability(c);
      if (p <= max_failure_) return c;
      if (p < lowest) {
        lowest = p;
        safest = c;
      }
    }
    return safest;
  }

  // Whether `evolve`'s children are ranked by the surrogate now: while fewer than
  // rank_evolve_below_ evaluations are done or pending (option rank_evolve_below; 0: never).
  bool rank_evolve() const { return observed_ + pending_.size() < rank_evolve_below_; }

  // The knowledge base's P(fail) of `c`; 0 without the knowledge base.
  double failure_probability(const Config& c) const { return use_kb_ ? kb_.failure_probability(c) : 0.0; }

  // Near the end of the budget, refine around the elites.
  std::vector<double> phase_bonus() const {
    std::vector<double> bonus(bandit_.size(), 0.0);
    if (budget_ && observed_ + pending_.size() >= budget_ - std::max<std::size_t>(1, budget_ / 10))
      bonus[arm_of(kLocal)] = 1.0;
    return bonus;
  }

  // ---- the space-filling start -------------------------------------------------------------
  std::optional<Config> next_initial() {
    if (design_.empty() && !design_made_) make_design();
    while (!design_.empty()) {
      Config target = design_.front();
      design_.pop_front();
      auto accept = [this](const Config& c) { return !sampler_.seen(c); };
      // Without the knowledge base kb_ is empty: repair then finds the nearest unseen
      // configuration that satisfies the stated constraints.
      if (auto c = kb_.repair(target, rng_, accept); c && usable(*c)) return c;
    }
    return std::nullopt;
  }

  // With alignment features (option alignment), each parameter that has them takes, within
  // its stratum of indices, the most aligned value (16..256 in steps of 16, 8 strata: 32, 64,
  // ..., 256) instead of a uniform one: the start lands on the sizes GPU kernels favour.
  void make_design() {
    design_made_ = true;
    const std::size_t d = space_.dimension();
    std::vector<std::vector<std::uint16_t>> columns(d);
    for (std::size_t p = 0; p < d; ++p) {
      const std::size_t values = space_.parameters()[p].values.size();
      const std::vector<double>& aligned = alignment_[p];
      for (std::size_t i = 0; i < initial_; ++i) {
        const double u = (static_cast<double>(i) + std::uniform_real_distribution<double>(0, 1)(rng_)) / initial_;
        std::size_t index = std::min(values - 1, static_cast<std::size_t>(u * values));
        if (!aligned.empty()) {
          const std::size_t lo = i * values / initial_, hi = std::min(values, ((i + 1) * values + initial_ - 1) / initial_);
          for (std::size_t j = lo; j < hi; ++j)
            if (aligned[j] > aligned[index]) index = j;
        }
        columns[p].push_back(static_cast<std::uint16_t>(index));
      }
      std::shuffle(columns[p].begin(), columns[p].end(), rng_);
    }
    for (std::size_t i = 0; i < initial_; ++i) {
      Config c(d);
      for (std::size_t p = 0; p < d; ++p) c[p] = columns[p][i];
      design_.push_back(c);
    }
  }

  // ---- candidates --------------------------------------------------------------------------
  std::optional<Config> random_usable() {
    for (int attempt = 0; attempt < 64; ++attempt) {
      auto c = random_valid();
      if (c && usable(*c)) return c;
    }
    auto c = sampler_.draw();  // exhaustive fallback: the next unseen valid configuration
    while (c && use_kb_ && kb_.known_infeasible(*c)) {
      sampler_.mark(*c);
      c = sampler_.draw();
    }
    return c;
  }

  std::optional<Config> random_valid() {
    if (const auto* all = sampler_.enumerated()) {
      if (all->empty()) return std::nullopt;
      return (*all)[std::uniform_int_distribution<std::size_t>(0, all->size() - 1)(rng_)];
    }
    return space_.sample_valid(rng_, 200);
  }

  std::vector<Config> candidates(std::size_t op) {
    std::vector<Config> pool;
    switch (op) {
      case kExplore:
        for (std::size_t i = 0; i < explore_candidates_; ++i)
          if (auto c = random_valid()) pool.push_back(*c);
        break;
      case kLocal: local_moves(pool); break;
      case kRecombine: recombinations(pool); break;
      case kEvolve: evolutions(pool); break;
      case kProbe: {
        auto accept = [this](const Config& c) { return !sampler_.seen(c); };
        pool = kb_.boundary_probes(candidates_ / 4, accept);
        break;
      }
    }
    return pool;
  }

  // The best successes, at least niche_radius_ apart (clearing).
  std::vector<const Success*> elites() const {
    std::vector<const Success*> sorted;
    for (const auto& s : successes_) sorted.push_back(&s);
    std::sort(sorted.begin(), sorted.end(),
              [](const Success* a, const Success* b) { return a->log_objective < b->log_objective; });
    std::vector<const Success*> kept;
    for (const Success* s : sorted) {
      bool far = true;
      for (const Success* k : kept) far = far && space_.distance(s->config, k->config) >= niche_radius_;
      if (far) kept.push_back(s);
      if (kept.size() == niches_) break;
    }
    return kept;
  }

  // Rank-weighted choice: the best niche most often.
  const Success* pick_elite(const std::vector<const Success*>& es) {
    std::vector<double> w;
    for (std::size_t i = 0; i < es.size(); ++i) w.push_back(1.0 / (1.0 + i));
    return es[std::discrete_distribution<std::size_t>(w.begin(), w.end())(rng_)];
  }

  void step(Config& c, std::size_t p, int delta) const {
    const int n = static_cast<int>(space_.parameters()[p].values.size());
    c[p] = static_cast<std::uint16_t>(std::clamp(static_cast<int>(c[p]) + delta, 0, n - 1));
  }

  void local_moves(std::vector<Config>& pool) {
    if (free_.empty()) return;
    const auto es = elites();
    std::uniform_int_distribution<std::size_t> param(0, free_.size() - 1);
    std::uniform_int_distribution<int> sign(0, 1);
    for (std::size_t i = 0; i < candidates_; ++i) {
      Config c = pick_elite(es)->config;
      const int moves = i % 3 == 2 ? 2 : 1;  // mostly one parameter, sometimes two
      for (int m = 0; m < moves; ++m) {
        const std::size_t p = free_[param(rng_)];  // drawn in a fixed order: same seed, same trace
        step(c, p, sign(rng_) ? 1 : -1);
      }
      if (space_.satisfies(c)) pool.push_back(c);
    }
  }

  void recombinations(std::vector<Config>& pool) {
    const auto es = elites();
    const std::size_t d = space_.dimension();
    std::bernoulli_distribution coin(0.5), mutate(1.0 / std::max<std::size_t>(1, free_.size()));
    for (std::size_t i = 0; i < candidates_; ++i) {
      Config c = pick_elite(es)->config;
      const Config& other = pick_elite(es)->config;
      for (std::size_t p = 0; p < d; ++p) {
        if (coin(rng_)) c[p] = other[p];
        if (mutate(rng_)) step(c, p, coin(rng_) ? 1 : -1);
      }
      if (space_.satisfies(c)) pool.push_back(c);
    }
  }

  // `evolve`: children as strategy_ga.cpp breeds them: parents by size-2 tournament from the
  // best kEvolvePopulation successes, uniform crossover, each free parameter mutated to a
  // random value with probability 1 / (free parameters). Known-infeasible, seen and
  // constraint-violating children are skipped by the caller (usable()).
  void evolutions(std::vector<Config>& pool) {
    std::vector<const Success*> pop;
    for (const auto& s : successes_) pop.push_back(&s);
    std::sort(pop.begin(), pop.end(), [](const Success* a, const Success* b) {
      return a->log_objective < b->log_objective;
    });
    if (pop.size() > kEvolvePopulation) pop.resize(kEvolvePopulation);
    std::uniform_int_distribution<std::size_t> pick(0, pop.size() - 1);
    auto tournament = [&]() -> const Config& {
      const Success* a = pop[pick(rng_)];
      const Success* b = pop[pick(rng_)];
      return a->log_objective <= b->log_objective ? a->config : b->config;
    };
    const double rate = 1.0 / static_cast<double>(std::max<std::size_t>(1, free_.size()));
    for (std::size_t i = 0; i < candidates_; ++i) {
      Config c = tournament();
      const Config& other = tournament();
      crossover_and_mutate(c, other, space_, free_, rate, rng_);
      if (space_.satisfies(c)) pool.push_back(c);
    }
  }

  // ---- the surrogate -------------------------------------------------------------------------

  // The surrogate's alignment features: for each parameter of positive integer values whose
  // power-of-two alignment (the largest 2^k dividing the value) is not monotone in the value
  // order (16, 32, ..., 256: 48 is as aligned as 16, 64 more than 80), that alignment as
  // k / (largest k). GPU kernels often run best at sizes aligned to the warp (32), wavefront (64)
  // or a power of two; on indices alone a tree needs many splits to isolate 32, 64, 128 and 256
  // among 16 steps of 16.
  void make_alignment_features() {
    for (std::size_t p : free_) {
      const auto& values = space_.parameters()[p].values;
      std::vector<double> k;
      for (const Value& v : values) {
        if (!v.numeric || v.number < 1 || v.number != std::floor(v.number) || v.number > 1e15) break;
        auto n = static_cast<std::uint64_t>(v.number);
        int twos = 0;
        for (; n % 2 == 0; n /= 2) ++twos;
        k.push_back(twos);
      }
      if (k.size() != values.size()) continue;
      const bool up = std::is_sorted(k.begin(), k.end()), down = std::is_sorted(k.rbegin(), k.rend());
      if (up || down) continue;
      const double top = *std::max_element(k.begin(), k.end());
      for (double& e : k) e /= top;
      alignment_[p] = std::move(k);
    }
  }

  void refit_if_needed() {
    if (successes_.size() < 2 || unfitted_ == 0) return;
    if (unfitted_ < std::max<std::size_t>(1, successes_.size() / 20)) return;
    std::vector<PerformanceModel::Sample> samples;
    for (const auto& s : successes_) samples.push_back({s.config, size_, s.log_objective});
    // One size: its times as they are (the search within a size is unchanged by the size model).
    const bool other_sizes = size_model_ && add_transfer_samples(samples);
    model_.fit(samples, rng_, other_sizes ? PerformanceModel::Scale::per_size : PerformanceModel::Scale::absolute);
    unfitted_ = 0;
  }

  double expected_improvement(const Config& c) const {
    const auto p = model_.predict(c, &size_);
    const double sigma = std::max(p.stdev, 1e-6);
    const double z = (best_ - p.mean) / sigma;
    return (best_ - p.mean) * normal_cdf(z) + sigma * normal_pdf(z);
  }

  // The best-scoring usable candidate of operator `op`'s pool (see the file comment).
  std::optional<Config> best_candidate(const std::vector<Config>& pool, std::size_t op) {
    const double max_failure = op == kLocal ? max_failure_local_ : max_failure_;
    // The usable candidates with their P(fail); the likely failures are left out when any is not.
    std::vector<std::pair<const Config*, double>> usable_pool;
    bool any_likely_success = false;
    for (const Config& c : pool) {
      if (!usable(c)) continue;
      usable_pool.emplace_back(&c, failure_probability(c));
      any_likely_success = any_likely_success || usable_pool.back().second <= max_failure;
    }
    std::optional<Config> best;
    double best_score = -1;
    for (const auto& [candidate, p_fail] : usable_pool) {
      if (any_likely_success && p_fail > max_failure) continue;
      const Config& c = *candidate;
      double score = model_.empty() ? 1.0 : expected_improvement(c);
      if (use_kb_) score *= (1.0 - p_fail) * kb_.preference(c);
      for (const Pending& b : pending_) {
        const double dist = space_.distance(c, b.config) / niche_radius_;
        score *= 1.0 - std::exp(-dist * dist);
      }
      if (score > best_score) {
        best_score = score;
        best = c;
      }
    }
    return best;
  }

  const Space& space_;
  UnseenSampler sampler_;
  KnowledgeBase kb_;
  RandomForest::Options forest_options_;
  std::shared_ptr<const FeatureMap> features_;  // StrategyOptions::features, or option launch
  std::vector<long long> size_;                 // StrategyOptions::size
  std::vector<StrategyOptions::SizedOutcome> transfer_;
  std::vector<std::string> devices_;  // the other GPUs of transfer_, in order (sample_of)
  bool device_surrogate_ = false;     // option device_surrogate: the surrogate fits the other GPUs' records
  bool size_model_ = true;
  double start_kappa_ = 0.0;  // option start_kappa
  double start_winners_ = 0.5;  // option start_winners
  std::size_t start_sizes_ = 1;  // option start_sizes
  std::size_t rank_evolve_below_ = 0;  // option rank_evolve_below  // option size_model: predicted_start() from the transfer model
  PerformanceModel model_;  // the surrogate: this size's successes (refit_if_needed)
  std::unordered_map<Config, nlohmann::json, ConfigHash> beliefs_;  // belief() at proposal
  std::mt19937_64 rng_;
  bool use_kb_ = true;  // option knowledge_base
  double max_failure_ = 0.5;        // option max_failure_probability
  double max_failure_local_ = 0.8;  // option max_failure_probability_local
  std::vector<std::size_t> arms_;  // the bandit's arms: operators, in arm order
  OperatorBandit bandit_;
  std::size_t budget_;
  std::size_t initial_ = 8, batch_ = 0, candidates_ = 96, explore_candidates_ = 768, niches_ = 8;
  double niche_radius_ = 0.12;
  std::size_t observed_ = 0, unfitted_ = 0;
  double best_ = std::numeric_limits<double>::infinity();
  std::vector<Success> successes_;
  std::vector<std::size_t> free_;  // parameters with more than one value: the ones moves change
  // Per parameter, its alignment feature by value index; empty for a parameter without one
  // (make_alignment_features()).
  std::vector<std::vector<double>> alignment_;
  // Proposed and not yet observed, in proposal order, with the operator that proposed each (the
  // bandit credits it on the outcome). A new proposal is spread away from them (local
  // penalization): from those of the same request and, in a real tuning that asks for one
  // configuration per freed compile slot, from those still compiling or measuring.
  struct Pending {
    Config config;
    std::size_t op;
  };
  std::vector<Pending> pending_;
  std::deque<Config> design_;
  bool design_made_ = false;
  std::size_t turn_ = 0;  // the next operator of kTurnOrder while they take turns
};

}  // namespace

std::unique_ptr<Strategy> make_adaexplore_strategy(const Space& space, const StrategyOptions& options) {
  return std::make_unique<AdaExploreStrategy>(space, options);
}

}  // namespace adaexplore
