#include "replay_backend.hpp"

#include <limits>

#include "strategy.hpp"

namespace adaexplore {

ReplayBackend::ReplayBackend(const KernelTunerCache& cache) : cache_(cache) {
  index_.reserve(cache.records.size());
  for (std::size_t i = 0; i < cache.records.size(); ++i) {
    const Outcome& o = cache.records[i];
    index_.emplace(o.config, i);
    if (is_success(o.status) && o.objective && (!optimum_ || *o.objective < *optimum_->objective))
      optimum_ = o;
  }
}

nlohmann::json ReplayBackend::device() const {
  return {{"name", cache_.device_name},
          {"kernel", cache_.kernel_name},
          {"recorded", cache_.file.string()},
          {"problem_size", cache_.problem_size}};
}

Prepared ReplayBackend::prepare(const Config& config) {
  Prepared p;
  p.config = config;
  return p;
}

const Outcome* ReplayBackend::lookup(const Config& config) const {
  auto it = index_.find(config);
  return it == index_.end() ? nullptr : &cache_.records[it->second];
}

Outcome ReplayBackend::measure(Prepared& prepared) {
  if (const Outcome* recorded = lookup(prepared.config)) return *recorded;
  Outcome o;
  o.config = prepared.config;
  o.label = cache_.space.label(prepared.config);
  o.status = Status::invalid;
  o.message =
      "not in the recorded space: " + cache_.file.string() + " holds no record of " + o.label;
  return o;
}

TuneReport replay_tuning(ReplayBackend& backend, const std::string& strategy,
                         const nlohmann::json& options, std::size_t budget, std::uint64_t seed) {
  const Space& space = backend.cache().space;
  StrategyOptions so;
  so.seed = seed;
  so.budget = budget;
  so.options = options;
  auto search = make_strategy(strategy, space, so);
  TuneOptions to;
  to.kernel = backend.cache().kernel_name;
  to.budget = budget;
  to.evaluate_baseline = false;  // replay has no baseline: every evaluation is the strategy's
  to.setup_failure_window = std::numeric_limits<std::size_t>::max();  // recorded failures are data
  return run_tuning(space, Config{}, backend, *search, to, nullptr);
}

double optimum_ratio(const std::optional<Outcome>& optimum, const std::optional<Outcome>& best) {
  return optimum && best ? *optimum->objective / *best->objective : 0.0;
}

}  // namespace adaexplore
