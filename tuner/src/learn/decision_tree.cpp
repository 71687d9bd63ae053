#include "learn/decision_tree.hpp"

#include <algorithm>
#include <cmath>

#include "learn/rule_text.hpp"

namespace adaexplore {
namespace {

std::size_t status_index(Status s) { return static_cast<std::size_t>(s); }

double gini(std::size_t failures, std::size_t samples) {
  if (samples == 0) return 0.0;
  const double p = static_cast<double>(failures) / static_cast<double>(samples);
  return 2.0 * p * (1.0 - p);
}

std::string describe_counts(const DecisionTree::Counts& c) {
  std::string detail;
  for (Status s : kAllStatuses)
    if (!is_success(s) && c.by_status[status_index(s)])
      detail +=
          (detail.empty() ? "" : ", ") + std::string(to_string(s)) + " " + std::to_string(c.by_status[status_index(s)]);
  return std::to_string(c.failures) + " of " + std::to_string(c.samples) + " failed" +
         (detail.empty() ? "" : " (" + detail + ")") + ", P(fail) " + format_number(c.failure_probability(), 2);
}

}  // namespace

// The conditions a path puts on each parameter: an index interval, and for categorical
// parameters the value it must equal or the values it must not.
struct DecisionTree::Path {
  std::vector<int> lo, hi, equal;
  std::vector<std::vector<int>> excluded;
};

std::string DecisionTree::render(const Space& space, const Path& b) {
  std::string out;
  auto add = [&out](const std::string& s) { out += (out.empty() ? "" : " and ") + s; };
  for (std::size_t p = 0; p < space.dimension(); ++p) {
    const auto& param = space.parameters()[p];
    const int last = static_cast<int>(param.values.size()) - 1;
    if (b.equal[p] >= 0)
      add(param.name + " = " + param.values[b.equal[p]].text);
    else if (b.lo[p] > 0 || b.hi[p] < last)
      add(describe_range(param, b.lo[p], b.hi[p]));
    for (int v : b.excluded[p]) add(param.name + " != " + param.values[v].text);
  }
  return out.empty() ? "everywhere" : out;
}

struct DecisionTree::Split {
  int parameter = -1;
  bool equality = false;
  double threshold = 0;
  double gain = 0;
};

double DecisionTree::Counts::failure_probability() const {
  return (static_cast<double>(failures) + 2.0 * prior) / (static_cast<double>(samples) + 2.0);
}

Status DecisionTree::Counts::majority(bool failing) const {
  Status best = Status::ok;
  std::size_t most = 0;
  for (Status s : kAllStatuses)
    if (is_success(s) != failing && by_status[status_index(s)] > most) {
      best = s;
      most = by_status[status_index(s)];
    }
  return best;
}

void DecisionTree::fit(const Space& space, const std::vector<const Config*>& x, const std::vector<Status>& y,
                       Options options) {
  nodes_.clear();
  options_ = options;
  space_ = &space;
  x_ = &x;
  y_ = &y;
  std::size_t failures = 0;
  for (Status s : y) failures += is_success(s) ? 0 : 1;
  prior_ = (failures + 1.0) / (y.size() + 2.0);
  std::vector<std::size_t> rows(x.size());
  for (std::size_t i = 0; i < rows.size(); ++i) rows[i] = i;
  grow(rows, 0);
  space_ = nullptr;
  x_ = nullptr;
  y_ = nullptr;
}

int DecisionTree::grow(std::vector<std::size_t>& rows, int depth) {
  const int id = static_cast<int>(nodes_.size());
  nodes_.emplace_back();
  Counts counts;
  counts.prior = prior_;
  for (std::size_t r : rows) {
    ++counts.by_status[status_index((*y_)[r])];
    ++counts.samples;
    if (!is_success((*y_)[r])) ++counts.failures;
  }
  nodes_[id].counts = counts;
  const bool pure = counts.failures == 0 || counts.failures == counts.samples;
  if (pure || depth >= options_.max_depth || rows.size() < options_.min_split) return id;
  const Split split = best_split(rows);
  if (split.parameter < 0) return id;
  nodes_[id].parameter = split.parameter;
  nodes_[id].equality = split.equality;
  nodes_[id].threshold = split.threshold;
  std::vector<std::size_t> left, right;
  for (std::size_t r : rows) (goes_left(nodes_[id], *(*x_)[r]) ? left : right).push_back(r);
  rows.clear();
  rows.shrink_to_fit();
  const int l = grow(left, depth + 1);
  const int rt = grow(right, depth + 1);
  nodes_[id].left = l;
  nodes_[id].right = rt;
  return id;
}

// Scans every parameter: ordinal cut points between consecutive observed indices, and for a
// categorical parameter every "== value" split. Largest Gini decrease wins; ties keep the first.
DecisionTree::Split DecisionTree::best_split(const std::vector<std::size_t>& rows) const {
  const std::size_t n = rows.size();
  std::size_t failures = 0;
  for (std::size_t r : rows) failures += is_success((*y_)[r]) ? 0 : 1;
  const double parent = gini(failures, n);
  Split best;
  auto consider = [&](int p, bool eq, double threshold, std::size_t nl, std::size_t fl) {
    const std::size_t nr = n - nl;
    if (nl < options_.min_leaf || nr < options_.min_leaf) return;
    const double child = (nl * gini(fl, nl) + nr * gini(failures - fl, nr)) / static_cast<double>(n);
    if (parent - child > best.gain + 1e-12) best = Split{p, eq, threshold, parent - child};
  };
  std::vector<std::pair<int, int>> column(n);  // (index, failed)
  for (std::size_t p = 0; p < space_->dimension(); ++p) {
    for (std::size_t i = 0; i < n; ++i) column[i] = {(*(*x_)[rows[i]])[p], is_success((*y_)[rows[i]]) ? 0 : 1};
    std::sort(column.begin(), column.end());
    const bool categorical = !space_->parameters()[p].values.front().numeric;
    std::size_t nl = 0, fl = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t start = i;
      std::size_t f = 0;
      for (; i + 1 < n && column[i + 1].first == column[start].first; ++i) f += column[i].second;
      f += column[i].second;
      if (categorical) consider(static_cast<int>(p), true, column[start].first, i - start + 1, f);
      nl += i - start + 1;
      fl += f;
      if (i + 1 < n) consider(static_cast<int>(p), false, 0.5 * (column[i].first + column[i + 1].first), nl, fl);
    }
  }
  return best;
}

bool DecisionTree::goes_left(const Node& n, const Config& c) const {
  const double v = c[static_cast<std::size_t>(n.parameter)];
  return n.equality ? v == n.threshold : v <= n.threshold;
}

const DecisionTree::Counts& DecisionTree::leaf(const Config& c) const {
  static const Counts empty;
  if (nodes_.empty()) return empty;
  int i = 0;
  while (nodes_[i].parameter >= 0) i = goes_left(nodes_[i], c) ? nodes_[i].left : nodes_[i].right;
  return nodes_[i].counts;
}

std::size_t DecisionTree::leaves() const {
  return static_cast<std::size_t>(
      std::count_if(nodes_.begin(), nodes_.end(), [](const Node& n) { return n.parameter < 0; }));
}

std::vector<std::string> DecisionTree::describe_failing_leaves(const Space& space, double min_probability) const {
  std::vector<std::pair<double, std::string>> found;
  if (!nodes_.empty()) {
    Path b;
    b.lo.assign(space.dimension(), 0);
    b.equal.assign(space.dimension(), -1);
    b.excluded.assign(space.dimension(), {});
    for (const auto& p : space.parameters()) b.hi.push_back(static_cast<int>(p.values.size()) - 1);
    collect_leaves(space, 0, b, min_probability, found);
  }
  std::stable_sort(found.begin(), found.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  std::vector<std::string> lines;
  for (auto& f : found) lines.push_back(std::move(f.second));
  return lines;
}

void DecisionTree::collect_leaves(const Space& space, int id, Path bounds, double min_probability,
                                  std::vector<std::pair<double, std::string>>& out) const {
  const Node& n = nodes_[id];
  if (n.parameter < 0) {
    if (n.counts.samples > 0 && n.counts.failure_probability() >= min_probability)
      out.emplace_back(n.counts.failure_probability(), render(space, bounds) + ": " + describe_counts(n.counts));
    return;
  }
  const std::size_t p = static_cast<std::size_t>(n.parameter);
  Path left = bounds, right = std::move(bounds);
  if (n.equality) {
    left.equal[p] = static_cast<int>(n.threshold);
    right.excluded[p].push_back(static_cast<int>(n.threshold));
  } else {
    left.hi[p] = std::min(left.hi[p], static_cast<int>(std::floor(n.threshold)));
    right.lo[p] = std::max(right.lo[p], static_cast<int>(std::ceil(n.threshold)));
  }
  collect_leaves(space, n.left, std::move(left), min_probability, out);
  collect_leaves(space, n.right, std::move(right), min_probability, out);
}

}  // namespace adaexplore
