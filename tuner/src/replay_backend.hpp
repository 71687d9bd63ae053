// `replay`: a backend that answers from a recorded, exhaustively measured search space (a Kernel
// Tuner cache file, see kernel_tuner_cache.hpp) instead of compiling and running anything. Used to
// benchmark strategies offline: same strategy, seed and file, same trace.
#pragma once

#include <optional>
#include <unordered_map>

#include "backend.hpp"
#include "kernel_tuner_cache.hpp"
#include "tuner.hpp"

namespace adaexplore {

class ReplayBackend : public Backend {
 public:
  /// `cache` must outlive the backend. Stateless after construction: one backend serves any
  /// number of tunings (several seeds) of the same file.
  explicit ReplayBackend(const KernelTunerCache& cache);

  std::string name() const override { return "replay"; }
  /// {"name": device_name, "kernel": kernel_name, "recorded": file path, "problem_size": ...}.
  nlohmann::json device() const override;
  /// Never fails: everything is decided in measure().
  Prepared prepare(const Config& config) override;
  /// The recorded outcome of the configuration (config, label, status, objective in ms, timing,
  /// stage_ms as recorded). A configuration absent from the file has status invalid and the
  /// message "not in the recorded space".
  Outcome measure(Prepared& prepared) override;

  /// The recorded outcome of `config`, or nullptr when the file does not hold it.
  const Outcome* lookup(const Config& config) const;
  /// The best recorded success (lowest objective, first in file order on ties); none when every
  /// record is a failure.
  const std::optional<Outcome>& optimum() const { return optimum_; }
  const KernelTunerCache& cache() const { return cache_; }

 private:
  const KernelTunerCache& cache_;
  std::unordered_map<Config, std::size_t, ConfigHash> index_;
  std::optional<Outcome> optimum_;
};

/// One replayed tuning: `strategy` (a registered name, with its JSON `options`) seeded with
/// `seed`, run through run_tuning with no baseline first and no setup-failure stop, until
/// `budget` distinct configurations (failures included, as Kernel Tuner's max_fevals) were
/// evaluated or the space is exhausted. Deterministic: same arguments, same outcomes.
TuneReport replay_tuning(ReplayBackend& backend, const std::string& strategy,
                         const nlohmann::json& options, std::size_t budget, std::uint64_t seed);

/// optimum / best: 1 when the optimum was found, 0 when nothing succeeded (or nothing did in the
/// file).
double optimum_ratio(const std::optional<Outcome>& optimum, const std::optional<Outcome>& best);

}  // namespace adaexplore
