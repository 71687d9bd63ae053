// Warm start: a new key of a kernel (another GPU, an edited template) starts from the best
// configurations of the kernel's other keys in the tuning database.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/outcome.hpp"
#include "model/space.hpp"
#include "store/database.hpp"

namespace adaexplore {

/// The configurations a warm start evaluates first, and where they come from.
struct WarmStart {
  std::vector<Config> configs;       // in the order they are to be evaluated
  std::size_t keys = 0;              // keys they come from
  std::vector<std::string> devices;  // those keys' device names, distinct, in order
  /// "4 configurations from 2 earlier keys (device NVIDIA A100-SXM4-80GB, NVIDIA H100 80GB HBM3)"
  std::string describe() const;
};

/// Up to `limit` configurations from the keys other than `current_key`: taken round-robin over
/// those keys (keys of a device with the same name first, then the most recently started), from
/// each key its successful records, lowest objective first. Records whose configuration is not in
/// `space` (an edited search space) or violates one of its constraints are skipped, and so are
/// the configurations of `measured` (the current key's outcomes).
WarmStart warm_start(const std::vector<StoredKey>& keys, const std::string& current_key,
                     const nlohmann::json& device, const Space& space, std::size_t limit,
                     const std::vector<Outcome>& measured = {});

}  // namespace adaexplore
