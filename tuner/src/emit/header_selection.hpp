// Which stored keys a header of several GPUs is written from (`header --database`): the keys of
// the spec's content (same spec, template, benchmark, backend: any device), one per compute
// capability.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/spec.hpp"
#include "store/database.hpp"

namespace adaexplore {

/// "9.0" -> 90, "10.0" -> 100, "12.1" -> 121 (10 * major + minor); 0 when absent or malformed.
int compute_capability_number(const nlohmann::json& device);

/// One device's entry of a header written from the database.
struct DeviceChoice {
  int compute_capability = 0;  // 10 * major + minor; 0 for the host backend
  std::filesystem::path file;
  ResultsFile results;  // the key's records, rebuilt in the spec's space
  Outcome best;         // its winner (crown.hpp)
  std::string why;      // how it was chosen among several of its compute capability; empty if alone
};

struct HeaderSelection {
  std::vector<DeviceChoice> chosen;  // one per compute capability, ascending
  std::size_t usable = 0;            // keys of the spec's content with a successful result
  std::vector<std::string> notes;    // keys left out and why
};

/// The keys whose content parts equal the spec's (same spec, template, benchmark, backend: any
/// device), with a successful result; one per compute capability (host backend: one in all):
/// among several, the first whose device name contains one of `prefer` (in the order given),
/// else the most recently started. Records outside the spec's space are an error (ResultsError).
HeaderSelection select_for_header(const std::vector<StoredKey>& keys, const Spec& spec,
                                  const std::vector<std::string>& prefer);

}  // namespace adaexplore
