// Near-ties decided by interleaved re-measurement, not by one sample each. After a tuning, the
// successful configurations whose median lies within a margin of the best one's (the contenders)
// are prepared once more and measured again in rounds, every contender once per round, in an
// order rotated each round (A B C, B C A, C A B), so that a drift of the GPU's clocks or of the
// machine's load during the rounds hits every contender alike. The winner is the contender with
// the lowest median of its round medians (the original measurement is not counted: it was taken
// at another time, under other conditions).
//
// This is the practice of benchmark suites that compare close alternatives (e.g. Georges, Buytaert
// and Eeckhout, "Statistically Rigorous Java Performance Evaluation", OOPSLA 2007: repeated,
// randomized-order invocations; Mytkowicz et al., "Producing Wrong Data Without Doing Anything
// Obviously Wrong!", ASPLOS 2009: one measurement context biases a comparison).
//
// Among contenders whose medians of rounds are within kTieMargin (1 %) of the lowest, the first in
// the space's order wins (crown.hpp rule 2): rounds do not tell such near-ties apart, and the same
// space tuned afresh then crowns the same configuration.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "evaluate/backend.hpp"

namespace adaexplore {

struct ConfirmOptions {
  std::size_t rounds = 3;          // measurements per contender; 0: no confirmation
  double margin = 0.03;            // contenders: median <= best median x (1 + margin)
  std::size_t max_contenders = 4;  // the best ones, at most this many (the best included)
};

struct Confirmation {
  struct Contender {
    std::string label;
    Config config;
    double tuning_ms = 0;             // its median in the tuning (ms)
    std::vector<double> round_ms;     // its median in each round (ms), in round order
    double median_ms = 0;             // median of round_ms; 0 when it failed
    std::string failure;              // why it dropped out (a round that did not succeed)
  };
  std::vector<Contender> contenders;  // in the order of their tuning medians
  std::size_t rounds = 0;
  std::optional<std::size_t> winner;  // index into contenders; none when all dropped out
  bool changed = false;               // the winner is not the tuning's best

  nlohmann::json to_json() const;
  /// One line per contender: "  BLOCK=256 tuning 1.012 ms, rounds 1.010 1.011 1.013 -> 1.011 ms  <- winner".
  std::vector<std::string> describe() const;
};

/// The contenders among `outcomes`: crownable (crown.hpp), median
/// within options.margin of the fastest; the fastest first, at most options.max_contenders, the
/// one crown() picks among them (rule 2: the first in the space's order within 1 %) always
/// included. Fewer than two: nothing to confirm.
std::vector<Outcome> near_ties(const std::vector<Outcome>& outcomes, const ConfirmOptions& options);

/// Prepares each contender (keeping its artifact), measures them interleaved for options.rounds
/// rounds through `backend` (one configuration at a time), and picks the winner: the first in the
/// space's order among those whose median of rounds is within kTieMargin of the lowest (crown.hpp).
/// A contender whose preparation or any round does not succeed drops out, its status in `failure`.
Confirmation confirm_near_ties(Backend& backend, const std::vector<Outcome>& contenders,
                               const ConfirmOptions& options);

}  // namespace adaexplore
