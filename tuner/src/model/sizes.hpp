// Problem sizes: one tuning of a kernel for every size a library calls it at, each size a key of
// its own, the later sizes starting from what the earlier ones learned (transfer).
//
// The spec's "sizes" (optional; CMake: SIZES "M=512 N=512 K=512" ...):
//   "sizes": {"names": ["M", "N", "K"],                        // identifiers, distinct, in order
//             "values": [[512, 512, 512], [4096, 4096, 4096]],  // positive integers, one per name
//             "budget": 50,        // evaluations of a size tuned after another (default
//                                  // ceil(budget.evaluations / 3))
//             "warm_start": 8}     // configurations taken from the other sizes (default 8)
// The benchmark gets each size as --adaexplore-size NAME=VALUE (harness: Benchmark::size) on top
// of run.args; the results key of each size is the spec's key with "size": {"M": 512, ...} added
// (store/key.hpp key_parts), so a size added to the list is tuned alone and one removed drops out
// of the header, the others' results untouched.
//
// Order and budget (command_tune.cpp): sizes are tuned in ascending volume (the product of their
// values; declared order on ties), the small representative problem first. A size tuned while no
// other size of the kernel has a successful result gets the whole budget; every later one gets
// "budget" and starts from the others' evidence (transfer_from below): their best configurations
// are evaluated right after the defaults, and their failures that do not depend on the size
// (size_independent) are known to adaexplore's knowledge base before its first proposal.
// After all sizes are tuned, each size's winner is evaluated at every other size (the header says
// where it verified); one that beats a size's own winner there takes its place, and one that is
// wrong, crashes or fails to launch at any size is crowned at none (select() may hand it sizes
// near that one): the next best is verified instead. The time limit (budget.seconds) applies to
// each size's tuning.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/outcome.hpp"
#include "model/space.hpp"

namespace adaexplore {

/// One problem size: a value per SizesSpec::names, each >= 1.
struct ProblemSize {
  std::vector<long long> values;
  bool operator==(const ProblemSize& o) const { return values == o.values; }
};

struct SizesSpec {
  std::vector<std::string> names;   // e.g. M, N, K
  std::vector<ProblemSize> sizes;   // as declared; empty: the kernel is tuned at one size (run.args)
  std::optional<std::size_t> budget;  // evaluations of a size tuned after another; unset: default
  std::size_t warm_start = 8;         // configurations taken from the other sizes

  bool empty() const { return sizes.empty(); }
  /// "M=512 N=512 K=512"
  std::string label(const ProblemSize& s) const;
  /// "M512_N512_K512": file and folder names
  std::string slug(const ProblemSize& s) const;
  /// {"M": 512, "N": 512, "K": 512}: the results key's "size" part
  nlohmann::json to_json(const ProblemSize& s) const;
  /// The benchmark's arguments: --adaexplore-size M=512 --adaexplore-size N=512 ...
  std::vector<std::string> arguments(const ProblemSize& s) const;
  /// The budget of a size tuned after another: `budget`, else ceil(full / 3), at least 1.
  std::size_t later_budget(std::size_t full) const;
};

/// The spec's "sizes" (above); `where(...)` messages are "<file>: sizes...: <problem>". Throws
/// the error `fail` throws (SpecError from spec.cpp). `reserved`: names a size may not take (the
/// parameters' names: the header declares both); nor may it take a name identifier.hpp refuses.
SizesSpec parse_sizes(const nlohmann::json& j, const std::vector<std::string>& reserved,
                      const std::function<void(const std::string& where, const std::string& what)>& fail);

/// The product of the values (as a double: no overflow).
double volume(const ProblemSize& s);
/// Distance in log space: the sum over the names of |ln(a_i / b_i)|.
double log_distance(const ProblemSize& a, const ProblemSize& b);
/// Indices of `sizes` in the order they are tuned: ascending volume, declared order on ties.
std::vector<std::size_t> tuning_order(const std::vector<ProblemSize>& sizes);
/// `candidates` ordered nearest to sizes[of] first (log_distance; ties: the larger volume first,
/// then declared order).
std::vector<std::size_t> nearest_first(const std::vector<ProblemSize>& sizes, std::size_t of,
                                       std::vector<std::size_t> candidates);

/// A failure whose cause does not depend on the problem size, since the kernel's code does not:
/// compile_error, and resource_limit decided before any run (ptxas's verdict, the static launch
/// check over the parameters); not the harness's resource_limit (a failed allocation, or a block or
/// dynamic shared memory the benchmark may compute from the size).
bool size_independent(const Outcome& o);

/// What a size takes from the sizes tuned before it.
struct SizeTransfer {
  std::vector<Config> warm_start;  // evaluated right after the defaults, in order
  /// For the knowledge base (StrategyOptions::prior): the size_independent failures, one per
  /// configuration. (Not the successes: observed, they would be left out of the knowledge base's
  /// repairs and probes here, where only their feasibility is known.)
  std::vector<Outcome> prior;
  std::size_t sources = 0;  // sizes taken from
  /// "6 configurations to evaluate first and 12 size-independent failures known, from 2 other sizes"
  std::string describe() const;
};

/// From the outcomes of other sizes (`others`, nearest first): up to `limit` warm-start
/// configurations, taken round-robin over the sizes, from each its successful outcomes lowest
/// objective first, skipping configurations in `measured` (this size's outcomes) and repeats;
/// and `prior`: per configuration not in `measured`, its first size_independent failure.
SizeTransfer transfer_from(const std::vector<const std::vector<Outcome>*>& others, std::size_t limit,
                           const std::vector<Outcome>& measured);

}  // namespace adaexplore
