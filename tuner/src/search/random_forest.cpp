#include "search/random_forest.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace adaexplore {
namespace {

struct Split {
  int feature = -1;
  double threshold = 0;
  double gain = 0;
};

double mean_of(const std::vector<double>& y, const std::vector<int>& rows) {
  double s = 0;
  for (int r : rows) s += y[r];
  return rows.empty() ? 0.0 : s / static_cast<double>(rows.size());
}

// Best variance-reducing threshold on one feature (sum of squared errors criterion).
Split best_split_on(int f, const std::vector<std::vector<double>>& x, const std::vector<double>& y,
                    std::vector<int> rows, int min_leaf) {
  std::sort(rows.begin(), rows.end(), [&](int a, int b) { return x[a][f] < x[b][f]; });
  const std::size_t n = rows.size();
  double total = 0, total_sq = 0;
  for (int r : rows) {
    total += y[r];
    total_sq += y[r] * y[r];
  }
  const double parent_sse = total_sq - total * total / static_cast<double>(n);
  Split best;
  double left = 0, left_sq = 0;
  for (std::size_t i = 0; i + 1 < n; ++i) {
    left += y[rows[i]];
    left_sq += y[rows[i]] * y[rows[i]];
    const double a = x[rows[i]][f], b = x[rows[i + 1]][f];
    if (a == b || static_cast<int>(i + 1) < min_leaf || static_cast<int>(n - i - 1) < min_leaf) continue;
    const double nl = static_cast<double>(i + 1), nr = static_cast<double>(n - i - 1);
    const double right = total - left, right_sq = total_sq - left_sq;
    const double sse = (left_sq - left * left / nl) + (right_sq - right * right / nr);
    const double gain = parent_sse - sse;
    if (gain > best.gain + 1e-12) best = {f, 0.5 * (a + b), gain};
  }
  return best;
}

}  // namespace

void RandomForest::fit(const std::vector<std::vector<double>>& x, const std::vector<double>& y, std::mt19937_64& rng) {
  trees_.clear();
  if (x.empty()) return;
  std::uniform_int_distribution<int> pick(0, static_cast<int>(x.size()) - 1);
  for (int t = 0; t < options_.trees; ++t) {
    std::vector<int> rows(x.size());
    for (int& r : rows) r = pick(rng);  // bootstrap sample
    Tree tree;
    grow(tree, x, y, rows, 0, rng);
    trees_.push_back(std::move(tree));
  }
}

int RandomForest::grow(Tree& tree, const std::vector<std::vector<double>>& x, const std::vector<double>& y,
                       std::vector<int>& rows, int depth, std::mt19937_64& rng) const {
  const int index = static_cast<int>(tree.size());
  tree.push_back(Node{});
  tree[index].value = mean_of(y, rows);
  if (depth >= options_.max_depth || static_cast<int>(rows.size()) < 2 * options_.min_leaf) return index;
  const int features = static_cast<int>(x[0].size());
  std::vector<int> order(features);
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), rng);
  const int tried = std::max(1, static_cast<int>(std::ceil(options_.feature_fraction * features)));
  Split best;
  for (int k = 0; k < tried; ++k) {
    Split s = best_split_on(order[k], x, y, rows, options_.min_leaf);
    if (s.gain > best.gain) best = s;
  }
  if (best.feature < 0) return index;
  std::vector<int> left, right;
  for (int r : rows) (x[r][best.feature] <= best.threshold ? left : right).push_back(r);
  const int l = grow(tree, x, y, left, depth + 1, rng);
  const int r = grow(tree, x, y, right, depth + 1, rng);
  tree[index].feature = best.feature;
  tree[index].threshold = best.threshold;
  tree[index].left = l;
  tree[index].right = r;
  return index;
}

double RandomForest::predict_tree(const Tree& tree, const std::vector<double>& x) {
  int i = 0;
  while (tree[i].feature >= 0) i = x[tree[i].feature] <= tree[i].threshold ? tree[i].left : tree[i].right;
  return tree[i].value;
}

RandomForest::Prediction RandomForest::predict(const std::vector<double>& x) const {
  Prediction p;
  if (trees_.empty()) return p;
  double s = 0, sq = 0;
  for (const auto& t : trees_) {
    const double v = predict_tree(t, x);
    s += v;
    sq += v * v;
  }
  const double n = static_cast<double>(trees_.size());
  p.mean = s / n;
  p.stdev = std::sqrt(std::max(0.0, sq / n - p.mean * p.mean));
  return p;
}

}  // namespace adaexplore
