#include "learn/monomial_fit.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "learn/rule_text.hpp"

namespace adaexplore {
namespace {

// Snapping exponents to a grid may raise the rms log error by at most this much (about 5 %).
constexpr double kSnapTolerance = 0.05;

bool positive_numbers(const Parameter& p) {
  return std::all_of(p.values.begin(), p.values.end(), [](const Value& v) { return v.numeric && v.number > 0; });
}

// Solves the n x n system a z = b (row-major) by Gaussian elimination with partial pivoting.
std::vector<double> solve(std::vector<double> a, std::vector<double> b, std::size_t n) {
  for (std::size_t col = 0; col < n; ++col) {
    std::size_t pivot = col;
    for (std::size_t r = col + 1; r < n; ++r)
      if (std::fabs(a[r * n + col]) > std::fabs(a[pivot * n + col])) pivot = r;
    for (std::size_t c = 0; c < n; ++c) std::swap(a[col * n + c], a[pivot * n + c]);
    std::swap(b[col], b[pivot]);
    for (std::size_t r = col + 1; r < n; ++r) {
      const double f = a[r * n + col] / a[col * n + col];
      for (std::size_t c = col; c < n; ++c) a[r * n + c] -= f * a[col * n + c];
      b[r] -= f * b[col];
    }
  }
  std::vector<double> z(n);
  for (std::size_t i = n; i-- > 0;) {
    double s = b[i];
    for (std::size_t c = i + 1; c < n; ++c) s -= a[i * n + c] * z[c];
    z[i] = s / a[i * n + i];
  }
  return z;
}

// The samples in log space: one row of log parameter values (the varying columns) per sample.
struct LogData {
  std::vector<std::size_t> columns;    // parameter indices
  std::vector<std::vector<double>> x;  // [sample][column]
  std::vector<double> y;
};

LogData log_data(const Space& space, const std::vector<const Config*>& x, const std::vector<double>& y) {
  LogData d;
  std::vector<std::size_t> candidates;
  for (std::size_t p = 0; p < space.dimension(); ++p)
    if (positive_numbers(space.parameters()[p])) candidates.push_back(p);
  std::vector<std::vector<double>> rows;
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (!(y[i] > 0)) continue;
    d.y.push_back(std::log(y[i]));
    std::vector<double> row;
    for (std::size_t p : candidates) row.push_back(std::log(space.value(*x[i], p).number));
    rows.push_back(std::move(row));
  }
  for (std::size_t j = 0; j < candidates.size(); ++j) {
    const bool varies = std::any_of(rows.begin(), rows.end(), [&](const auto& r) { return r[j] != rows[0][j]; });
    if (varies) d.columns.push_back(j);
  }
  for (auto& r : rows) {
    std::vector<double> kept;
    for (std::size_t j : d.columns) kept.push_back(r[j]);
    d.x.push_back(std::move(kept));
  }
  for (auto& j : d.columns) j = candidates[j];
  return d;
}

// The normal equations on centred data: the means of the columns and of y, and the Gram matrix
// with a tiny ridge for parameters that move together.
struct Centred {
  std::vector<double> mx;
  double my = 0;
  std::vector<double> g;  // k x k, row-major
};

Centred centred(const LogData& d) {
  const std::size_t k = d.columns.size(), n = d.y.size();
  Centred c;
  c.mx.assign(k, 0.0);
  for (std::size_t i = 0; i < n; ++i) {
    c.my += d.y[i] / n;
    for (std::size_t j = 0; j < k; ++j) c.mx[j] += d.x[i][j] / n;
  }
  c.g.assign(k * k, 0.0);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < k; ++j)
      for (std::size_t l = 0; l < k; ++l) c.g[j * k + l] += (d.x[i][j] - c.mx[j]) * (d.x[i][l] - c.mx[l]);
  double trace = 0;
  for (std::size_t j = 0; j < k; ++j) trace += c.g[j * k + j];
  for (std::size_t j = 0; j < k; ++j) c.g[j * k + j] += 1e-9 * (1.0 + trace / static_cast<double>(std::max<std::size_t>(k, 1)));
  return c;
}

// Least-squares slopes on centred data.
std::vector<double> slopes(const LogData& d) {
  const std::size_t k = d.columns.size(), n = d.y.size();
  const Centred c = centred(d);
  std::vector<double> r(k, 0.0);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < k; ++j) r[j] += (d.x[i][j] - c.mx[j]) * (d.y[i] - c.my);
  return solve(c.g, std::move(r), k);
}

// The largest leave-one-out error of the least-squares fit with slopes `a` (unsnapped): a
// sample's residual had it been left out of the fit is r_i / (1 - h_ii), h_ii = 1/n + x_i' G^-1
// x_i on centred data (the hat matrix's diagonal; e.g. Hastie, Tibshirani, Friedman, "The
// Elements of Statistical Learning", 2nd ed., 2009, eq. 7.52 with the penalty near 0). Infinite
// when a sample alone decides an exponent (h_ii = 1 but for the ridge, which leaves 1 - h_ii
// near 1e-8): nothing checks that exponent.
double leave_one_out_max(const LogData& d, const std::vector<double>& a) {
  const std::size_t k = d.columns.size(), n = d.y.size();
  const Centred c = centred(d);
  double worst = 0;
  std::vector<double> xc(k);
  for (std::size_t i = 0; i < n; ++i) {
    double r = d.y[i] - c.my;
    for (std::size_t j = 0; j < k; ++j) {
      xc[j] = d.x[i][j] - c.mx[j];
      r -= a[j] * xc[j];
    }
    double h = 1.0 / static_cast<double>(n);
    if (k) {
      const std::vector<double> z = solve(c.g, xc, k);
      for (std::size_t j = 0; j < k; ++j) h += xc[j] * z[j];
    }
    if (1.0 - h < 1e-6) return std::numeric_limits<double>::infinity();
    worst = std::max(worst, std::fabs(r) / (1.0 - h));
  }
  return worst;
}

// Sets the coefficient (the mean residual) and the error figures for the given slopes.
MonomialFit finish(const Space& space, const LogData& d, const std::vector<double>& a) {
  MonomialFit fit;
  fit.exponents.assign(space.dimension(), 0.0);
  for (std::size_t j = 0; j < a.size(); ++j) fit.exponents[d.columns[j]] = a[j];
  std::vector<double> residual(d.y.size());
  double intercept = 0;
  for (std::size_t i = 0; i < d.y.size(); ++i) {
    residual[i] = d.y[i];
    for (std::size_t j = 0; j < a.size(); ++j) residual[i] -= a[j] * d.x[i][j];
    intercept += residual[i] / d.y.size();
  }
  double squares = 0;
  for (double r : residual) {
    squares += (r - intercept) * (r - intercept);
    fit.max_log_error = std::max(fit.max_log_error, std::fabs(r - intercept));
  }
  fit.coefficient = std::exp(intercept);
  fit.rms_log_error = std::sqrt(squares / d.y.size());
  fit.samples = d.y.size();
  return fit;
}

std::vector<double> snapped(const std::vector<double>& a, double step) {
  std::vector<double> s(a.size());
  for (std::size_t j = 0; j < a.size(); ++j) s[j] = std::round(a[j] / step) * step;
  return s;
}

std::string factor(const std::string& name, double e) {
  if (e == 1) return name;
  return name + "^" + format_number(e, 3);
}

}  // namespace

double MonomialFit::predict(const Space& space, const Config& c) const {
  double v = coefficient;
  for (std::size_t p = 0; p < exponents.size(); ++p)
    if (exponents[p] != 0) v *= std::pow(space.value(c, p).number, exponents[p]);
  return v;
}

bool MonomialFit::constant() const {
  return std::all_of(exponents.begin(), exponents.end(), [](double e) { return e == 0; });
}

std::string MonomialFit::describe(const Space& space) const {
  std::string s = std::fabs(coefficient - 1) < 1e-3 && !constant() ? "" : format_number(coefficient, 3);
  for (std::size_t p = 0; p < exponents.size(); ++p) {
    if (exponents[p] == 0) continue;
    const std::string& name = space.parameters()[p].name;
    if (exponents[p] < 0)
      s += (s.empty() ? "1/" : "/") + factor(name, -exponents[p]);
    else
      s += (s.empty() ? "" : "*") + factor(name, exponents[p]);
  }
  return s;
}

std::size_t fittable_parameters(const Space& space) {
  return static_cast<std::size_t>(std::count_if(space.parameters().begin(), space.parameters().end(),
                                                [](const Parameter& p) { return p.values.size() > 1 && positive_numbers(p); }));
}

std::optional<MonomialFit> fit_monomial(const Space& space, const std::vector<const Config*>& x,
                                        const std::vector<double>& y) {
  const LogData d = log_data(space, x, y);
  if (d.y.size() < 3) return std::nullopt;
  const std::vector<double> a = d.columns.empty() ? std::vector<double>{} : slopes(d);
  MonomialFit raw = finish(space, d, a);
  const double loo = leave_one_out_max(d, a);
  raw.loo_max_log_error = std::max(loo, raw.max_log_error);
  for (double step : {1.0, 0.5}) {
    MonomialFit s = finish(space, d, snapped(a, step));
    if (s.rms_log_error <= raw.rms_log_error + kSnapTolerance) {
      // Snapped slopes are fixed: only the coefficient is fitted, so a left-out report's error is
      // its residual grown by n / (n - 1); the snap itself was chosen with every report present.
      const double n = static_cast<double>(d.y.size());
      s.loo_max_log_error = std::max(loo, s.max_log_error * n / (n - 1.0));
      return s;
    }
  }
  return raw;
}

}  // namespace adaexplore
