#include "learn/failure_model.hpp"

#include <algorithm>
#include <cmath>

#include "learn/rule_text.hpp"

namespace adaexplore {
namespace {

double sigmoid(double z) { return z >= 0 ? 1.0 / (1.0 + std::exp(-z)) : std::exp(z) / (1.0 + std::exp(z)); }

// Solves A x = b for a symmetric positive definite A (row-major, n x n) by Cholesky; false when A
// is not numerically positive definite.
bool solve_spd(std::vector<double> a, std::vector<double>& b, std::size_t n) {
  for (std::size_t j = 0; j < n; ++j) {
    double d = a[j * n + j];
    for (std::size_t k = 0; k < j; ++k) d -= a[j * n + k] * a[j * n + k];
    if (!(d > 1e-12)) return false;
    d = std::sqrt(d);
    a[j * n + j] = d;
    for (std::size_t i = j + 1; i < n; ++i) {
      double s = a[i * n + j];
      for (std::size_t k = 0; k < j; ++k) s -= a[i * n + k] * a[j * n + k];
      a[i * n + j] = s / d;
    }
  }
  for (std::size_t i = 0; i < n; ++i) {  // L y = b
    double s = b[i];
    for (std::size_t k = 0; k < i; ++k) s -= a[i * n + k] * b[k];
    b[i] = s / a[i * n + i];
  }
  for (std::size_t i = n; i-- > 0;) {  // L^T x = y
    double s = b[i];
    for (std::size_t k = i + 1; k < n; ++k) s -= a[k * n + i] * b[k];
    b[i] = s / a[i * n + i];
  }
  return true;
}

// Newton's method for the weights `w` (starting from what it holds) of a logistic regression of
// failure on the rows of `design` (f columns; `nonzero`: each row's non-zero columns), with a
// Gaussian prior of sd options.prior_sd on every weight but the intercept.
void newton_fit(const std::vector<double>& design, const std::vector<std::vector<std::size_t>>& nonzero,
                const std::vector<Status>& y, std::size_t f, const FailureModel::Options& options,
                std::vector<double>& w) {
  const double precision = 1.0 / (options.prior_sd * options.prior_sd);
  std::vector<double> hessian(f * f), step(f);
  for (int it = 0; it < options.iterations; ++it) {
    std::fill(hessian.begin(), hessian.end(), 0.0);
    std::fill(step.begin(), step.end(), 0.0);
    for (std::size_t i = 0; i < nonzero.size(); ++i) {
      const double* xi = &design[i * f];
      double z = 0;
      for (std::size_t j : nonzero[i]) z += w[j] * xi[j];
      const double mu = sigmoid(z), target = is_success(y[i]) ? 0.0 : 1.0;
      const double r = std::max(mu * (1.0 - mu), 1e-9);
      for (std::size_t a = 0; a < nonzero[i].size(); ++a) {
        const std::size_t j = nonzero[i][a];
        step[j] += (mu - target) * xi[j];
        for (std::size_t b = 0; b <= a; ++b) {
          const std::size_t k = nonzero[i][b];
          hessian[j * f + k] += r * xi[j] * xi[k];
        }
      }
    }
    for (std::size_t j = 0; j < f; ++j) {
      for (std::size_t k = 0; k < j; ++k) hessian[k * f + j] = hessian[j * f + k];
      // The intercept gets a weak prior (sd 10) only to keep the Hessian definite.
      const double prec = j == 0 ? 0.01 : precision;
      hessian[j * f + j] += prec;
      step[j] += prec * (j == 0 ? 0.0 : w[j]);
    }
    if (!solve_spd(hessian, step, f)) break;
    double moved = 0;
    for (std::size_t j = 0; j < f; ++j) {
      w[j] -= step[j];
      moved = std::max(moved, std::abs(step[j]));
    }
    if (moved < options.tolerance) break;
  }
}

}  // namespace

void FailureModel::features(const Space& space, const Config& c, std::vector<double>& x) const {
  x.assign(features_.size() + 1, 0.0);
  x[0] = 1.0;
  for (std::size_t j = 0; j < features_.size(); ++j) {
    const Feature& f = features_[j];
    const std::size_t v = c[f.parameter];
    x[j + 1] = f.value >= 0 ? (static_cast<int>(v) == f.value ? 1.0 : 0.0)
                            : (std::log2(space.parameters()[f.parameter].values[v].number) - f.centre) / f.scale;
  }
}

void FailureModel::fit(const Space& space, const std::vector<const Config*>& x, const std::vector<Status>& y,
                       Options options) {
  features_.clear();
  table_.clear();
  indicator_.clear();
  w_.clear();
  fitted_ = false;
  std::size_t failures = 0;
  for (Status s : y) failures += is_success(s) ? 0 : 1;
  base_rate_ = (failures + 1.0) / (y.size() + 2.0);
  if (x.size() < options.min_samples) return;

  for (std::size_t p = 0; p < space.dimension(); ++p) {
    const auto& values = space.parameters()[p].values;
    if (values.size() < 2) continue;
    for (std::size_t v = 0; v < values.size(); ++v) features_.push_back({p, static_cast<int>(v), 0, 1});
    const bool positive =
        std::all_of(values.begin(), values.end(), [](const Value& v) { return v.numeric && v.number > 0; });
    if (!positive) continue;
    double lo = INFINITY, hi = -INFINITY;
    for (const auto& v : values) {
      lo = std::min(lo, std::log2(v.number));
      hi = std::max(hi, std::log2(v.number));
    }
    if (hi > lo) features_.push_back({p, -1, 0.5 * (lo + hi), hi - lo});
  }

  const std::size_t f = features_.size() + 1, n = x.size();
  std::vector<double> design(n * f), row;
  std::vector<std::vector<std::size_t>> nonzero(n);  // a row has about one feature per parameter
  for (std::size_t i = 0; i < n; ++i) {
    features(space, *x[i], row);
    std::copy(row.begin(), row.end(), design.begin() + static_cast<std::ptrdiff_t>(i * f));
    for (std::size_t j = 0; j < f; ++j)
      if (row[j] != 0.0) nonzero[i].push_back(j);
  }
  w_.assign(f, 0.0);
  w_[0] = std::log(base_rate_ / (1.0 - base_rate_));
  newton_fit(design, nonzero, y, f, options, w_);

  table_.assign(space.dimension(), {});
  for (std::size_t p = 0; p < space.dimension(); ++p) table_[p].assign(space.parameters()[p].values.size(), 0.0);
  indicator_ = table_;
  for (std::size_t j = 0; j < features_.size(); ++j)
    if (features_[j].value >= 0) indicator_[features_[j].parameter][features_[j].value] = w_[j + 1];
  for (std::size_t j = 0; j < features_.size(); ++j) {
    const Feature& ft = features_[j];
    const auto& values = space.parameters()[ft.parameter].values;
    for (std::size_t v = 0; v < values.size(); ++v)
      table_[ft.parameter][v] += ft.value >= 0 ? (static_cast<int>(v) == ft.value ? w_[j + 1] : 0.0)
                                               : w_[j + 1] * (std::log2(values[v].number) - ft.centre) / ft.scale;
  }
  fitted_ = true;
}

double FailureModel::failure_probability(const Config& c) const {
  if (!fitted_) return base_rate_;
  double z = w_[0];
  for (std::size_t p = 0; p < table_.size(); ++p) z += table_[p][c[p]];
  return sigmoid(z);
}

double FailureModel::failure_probability_without_value(const Config& c, std::size_t parameter) const {
  if (!fitted_) return base_rate_;
  double z = w_[0];
  for (std::size_t p = 0; p < table_.size(); ++p) z += table_[p][c[p]];
  return sigmoid(z - indicator_[parameter][c[parameter]]);
}

std::vector<std::string> FailureModel::describe(const Space& space, double min_weight, std::size_t at_most) const {
  std::vector<std::pair<double, std::string>> found;
  if (fitted_)
    for (std::size_t j = 0; j < features_.size(); ++j) {
      const double w = w_[j + 1];
      if (w < min_weight) continue;
      const Feature& f = features_[j];
      const auto& param = space.parameters()[f.parameter];
      found.emplace_back(w, (f.value >= 0 ? param.name + "=" + param.values[f.value].text : "log2 " + param.name) +
                                " +" + format_number(w, 2));
    }
  std::stable_sort(found.begin(), found.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  std::vector<std::string> lines;
  for (std::size_t i = 0; i < found.size() && i < at_most; ++i) lines.push_back(found[i].second);
  return lines;
}

}  // namespace adaexplore
