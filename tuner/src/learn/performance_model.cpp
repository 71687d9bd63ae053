#include "learn/performance_model.hpp"

#include <algorithm>
#include <cmath>
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

namespace {

double ln_volume(const std::vector<long long>& size) {
  double v = 0;
  for (long long x : size) v += std::log(static_cast<double>(std::max<long long>(1, x)));
  return v;
}

// The size offsets of the two-way additive fit ln t(c, s) = offset(s) + effect(c) (least squares
// by alternating means; see the header): a size's offset moves only through the configurations it
// shares with other sizes, and a size that shares none keeps its mean. Normalised so that the
// samples' residuals ln t - offset(s) have mean 0.
using Group = std::pair<int, std::vector<long long>>;

std::map<Group, double> size_offsets(const std::vector<PerformanceModel::Sample>& samples) {
  std::map<Group, std::size_t> size_index;
  std::map<Config, std::size_t> config_index;
  std::vector<std::size_t> s_of(samples.size()), c_of(samples.size());
  for (std::size_t i = 0; i < samples.size(); ++i) {
    s_of[i] = size_index.emplace(Group{samples[i].device, samples[i].size}, size_index.size()).first->second;
    c_of[i] = config_index.emplace(samples[i].config, config_index.size()).first->second;
  }
  std::vector<double> offset(size_index.size(), 0.0), effect(config_index.size(), 0.0);
  std::vector<double> sum;
  std::vector<std::size_t> n;
  auto update = [&](std::vector<double>& out, const std::vector<std::size_t>& of, const std::vector<double>& other,
                    const std::vector<std::size_t>& other_of) {
    sum.assign(out.size(), 0.0);
    n.assign(out.size(), 0);
    for (std::size_t i = 0; i < samples.size(); ++i) {
      sum[of[i]] += samples[i].log_ms - other[other_of[i]];
      ++n[of[i]];
    }
    for (std::size_t k = 0; k < out.size(); ++k) out[k] = sum[k] / static_cast<double>(n[k]);
  };
  update(offset, s_of, effect, c_of);  // each size's mean
  if (size_index.size() > 1)
    for (int iteration = 0; iteration < 200; ++iteration) {
      const std::vector<double> before = offset;
      update(effect, c_of, offset, s_of);
      update(offset, s_of, effect, c_of);
      double moved = 0;
      for (std::size_t k = 0; k < offset.size(); ++k) moved = std::max(moved, std::abs(offset[k] - before[k]));
      if (moved < 1e-9) break;
    }
  double residual = 0;  // one size: 0 already (its offset is its mean), left exact
  if (size_index.size() > 1) {
    for (std::size_t i = 0; i < samples.size(); ++i) residual += samples[i].log_ms - offset[s_of[i]];
    residual /= static_cast<double>(samples.size());
  }
  std::map<Group, double> out;
  for (const auto& [group, k] : size_index) out[group] = offset[k] + residual;
  return out;
}

}  // namespace

void PerformanceModel::fit(const std::vector<Sample>& samples, std::mt19937_64& rng, Scale scale) {
  offsets_.clear();
  if (scale == Scale::per_size && !samples.empty()) offsets_ = size_offsets(samples);
  std::vector<std::vector<double>> x;
  std::vector<double> y;
  for (const auto& s : samples) {
    x.push_back(input(s.config, &s.size));
    y.push_back(s.log_ms - (offsets_.empty() ? 0.0 : offsets_.at(Group{s.device, s.size})));
  }
  forest_.fit(x, y, rng);
}

double PerformanceModel::offset(const std::vector<long long>* size) const {
  if (offsets_.empty()) return 0.0;
  static const std::vector<long long> none;
  const std::vector<long long>& s = size ? *size : none;
  if (const auto it = offsets_.find(Group{0, s}); it != offsets_.end()) return it->second;
  // Another size: from the two fitted sizes nearest in ln(volume) (see the header); this GPU's
  // before another's at an equal distance (the stable sort keeps the map's order, device 0 first).
  const double v = ln_volume(s);
  std::vector<std::pair<double, double>> points;       // ln volume, offset
  for (const auto& [group, o] : offsets_) points.emplace_back(ln_volume(group.second), o);
  std::stable_sort(points.begin(), points.end(), [v](const auto& a, const auto& b) {
    return std::abs(a.first - v) < std::abs(b.first - v);
  });
  const auto& nearest = points.front();
  double slope = 1.0;
  for (std::size_t k = 1; k < points.size(); ++k)
    if (std::abs(points[k].first - nearest.first) > 1e-9) {
      slope = (points[k].second - nearest.second) / (points[k].first - nearest.first);
      slope = std::clamp(slope, 0.0, 1.0);
      break;
    }
  return nearest.second + slope * (v - nearest.first);
}

bool PerformanceModel::fitted_size(const std::vector<long long>* size) const {
  static const std::vector<long long> none;
  return offsets_.count(Group{0, size ? *size : none}) > 0;
}

RandomForest::Prediction PerformanceModel::predict(const Config& c, const std::vector<long long>* size) const {
  RandomForest::Prediction p = forest_.predict(input(c, size));
  p.mean += offset(size);
  return p;
}

}  // namespace adaexplore
