#include "learn/failure_summary.hpp"

#include <array>

namespace adaexplore {
namespace {

constexpr std::size_t kStatuses = std::size(kAllStatuses);
using Counts = std::array<std::size_t, kStatuses>;

std::size_t index_of(Status s) { return static_cast<std::size_t>(s); }

// "every P=v configuration ..." when every evaluation with the value failed.
std::string every_failed(const std::string& what, const Counts& c, std::size_t n) {
  std::size_t kinds = 0;
  std::string detail;
  Status only = Status::ok;
  for (Status s : kAllStatuses)
    if (c[index_of(s)]) {
      if (is_success(s)) return {};
      ++kinds;
      only = s;
      detail += (detail.empty() ? "" : ", ") + std::string(to_string(s)) + " " + std::to_string(c[index_of(s)]);
    }
  const std::string of = std::to_string(n) + " of " + std::to_string(n);
  if (kinds == 1) return "every " + what + " configuration is " + to_string(only) + " (" + of + ")";
  return "every " + what + " configuration failed (" + of + ": " + detail + ")";
}

}  // namespace

std::vector<std::string> failure_alignment(const Space& space, const std::vector<Outcome>& outcomes,
                                           std::size_t min_count) {
  std::vector<std::string> lines;
  Counts total{};
  for (const auto& o : outcomes) ++total[index_of(o.status)];
  for (std::size_t p = 0; p < space.dimension(); ++p) {
    const auto& param = space.parameters()[p];
    std::vector<Counts> by_value(param.values.size(), Counts{});
    std::vector<std::size_t> n(param.values.size(), 0);
    for (const auto& o : outcomes) {
      ++by_value[o.config[p]][index_of(o.status)];
      ++n[o.config[p]];
    }
    for (std::size_t v = 0; v < param.values.size(); ++v) {
      if (n[v] == outcomes.size()) continue;  // shared by every evaluation: says nothing
      const std::string what = param.name + "=" + param.values[v].text;
      std::string every = n[v] >= min_count ? every_failed(what, by_value[v], n[v]) : "";
      if (!every.empty()) {
        lines.push_back(every);
        continue;
      }
      for (Status s : kAllStatuses) {
        const std::size_t k = by_value[v][index_of(s)];
        if (!is_success(s) && k >= min_count && k == total[index_of(s)])
          lines.push_back("all " + std::to_string(k) + " " + to_string(s) + " failures have " + what + " (" +
                          std::to_string(k) + " of " + std::to_string(n[v]) + " " + what + " evaluations)");
      }
    }
  }
  return lines;
}

}  // namespace adaexplore
