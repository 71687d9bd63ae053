#include "learn/performance_model.hpp"

#include <map>

namespace adaexplore {

PerformanceModel::PerformanceModel(const Space& space, const FeatureMap* features,
                                   std::vector<std::vector<double>> alignment, RandomForest::Options forest)
    : space_(&space), features_(features), alignment_(std::move(alignment)), forest_(forest) {
  alignment_.resize(space.dimension());
}

std::vector<double> PerformanceModel::input(const Config& c, const std::vector<long long>* size) const {
  std::vector<double> x(c.size());
  for (std::size_t p = 0; p < c.size(); ++p) {
    const double span = static_cast<double>(space_->parameters()[p].values.size() - 1);
    x[p] = span > 0 ? c[p] / span : 0.0;
  }
  for (std::size_t p = 0; p < c.size(); ++p)
    if (!alignment_[p].empty()) x.push_back(alignment_[p][c[p]]);
  if (features_) {
    const std::vector<double> b = features_->model_input(c, size && !size->empty() ? size : nullptr);
    x.insert(x.end(), b.begin(), b.end());
  }
  return x;
}

void PerformanceModel::fit(const std::vector<Sample>& samples, std::mt19937_64& rng, bool center) {
  std::map<std::vector<long long>, std::pair<double, std::size_t>> by_size;
  for (const auto& s : samples) {
    auto& [sum, n] = by_size[s.size];
    sum += s.log_ms;
    ++n;
  }
  center = center || by_size.size() > 1;
  std::vector<std::vector<double>> x;
  std::vector<double> y;
  for (const auto& s : samples) {
    x.push_back(input(s.config, &s.size));
    const auto& [sum, n] = by_size[s.size];
    y.push_back(center ? s.log_ms - sum / static_cast<double>(n) : s.log_ms);
  }
  forest_.fit(x, y, rng);
}

RandomForest::Prediction PerformanceModel::predict(const Config& c, const std::vector<long long>* size) const {
  return forest_.predict(input(c, size));
}

}  // namespace adaexplore
