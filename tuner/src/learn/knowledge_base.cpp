#include "learn/knowledge_base.hpp"

#include <stdexcept>

#include "learn/rule_text.hpp"

namespace adaexplore {
namespace {

constexpr const char* kFormat = "adaexplore-knowledge";
constexpr int kVersion = 1;

double confidence(std::size_t evidence) {
  return (static_cast<double>(evidence) + 1.0) / (static_cast<double>(evidence) + 2.0);
}

nlohmann::json parameters_json(const Space& space) {
  nlohmann::json j = nlohmann::json::array();
  for (const auto& p : space.parameters()) j.push_back({{"name", p.name}, {"values", p.values.size()}});
  return j;
}

std::string status_summary(const std::vector<Observation>& observations) {
  std::size_t counts[std::size(kAllStatuses)] = {};
  for (const auto& o : observations) ++counts[static_cast<std::size_t>(o.status)];
  std::string s = std::to_string(observations.size()) + " evaluations";
  std::string detail;
  for (Status st : kAllStatuses)
    if (counts[static_cast<std::size_t>(st)])
      detail += (detail.empty() ? "" : ", ") + std::string(to_string(st)) + " " +
                std::to_string(counts[static_cast<std::size_t>(st)]);
  return detail.empty() ? s : s + " (" + detail + ")";
}

}  // namespace

KnowledgeBase::KnowledgeBase(const Space& space, KnowledgeBaseOptions options)
    : space_(&space), options_(options), groups_(space.dimension()) {}

void KnowledgeBase::observe(const Outcome& outcome) { observe(observation_of(outcome)); }

void KnowledgeBase::observe(Observation o) {
  if (o.config.size() != space_->dimension())
    throw std::invalid_argument("knowledge base: a configuration of " + std::to_string(o.config.size()) +
                                " parameters observed in a space of " + std::to_string(space_->dimension()));
  const std::size_t i = observations_.size();
  groups_.add(o.config, i);
  index_[o.config] = i;
  observations_.push_back(std::move(o));
  stale_ = true;
}

const Observation* KnowledgeBase::observed(const Config& c) const {
  auto it = index_.find(c);
  return it == index_.end() ? nullptr : &observations_[it->second];
}

namespace {

// A failure that a learned resource rule accounts for: its reported figure is past the rule's
// failing edge (or, when it reported none, the fit less its leave-one-out error is) and it failed
// with the rule's status.
bool explained_by(const std::vector<ResourceRule>& rules, const Space& space, const Observation& o) {
  if (is_success(o.status)) return false;
  for (const auto& r : rules) {
    if (r.status != o.status) continue;
    const auto it = o.figures.find(r.figure);
    if (it == o.figures.end()) {
      if (r.suggests_failure(space, o.config)) return true;  // the fit, less its leave-one-out error
      continue;
    }
    if (r.limit_reported ? it->second > r.limit : it->second >= r.fails_from) return true;
  }
  return false;
}

}  // namespace

void KnowledgeBase::refresh() const {
  if (!stale_) return;
  // Resource rules first: the failures they account for are explained away, left out of the
  // statistical models below, which then model the rest. Otherwise a parameter value that often
  // meets a resource limit (gemm's BLOCK_M=128: more than 1024 threads when THREAD_M is small)
  // is ranked down everywhere, also where the rule says the configuration fits (THREAD_M=8),
  // which is where the fastest configurations are.
  resource_rules_ = learn_resource_rules(*space_, observations_, options_.resources);
  std::vector<bool> explained(observations_.size());
  explained_count_ = 0;
  for (std::size_t i = 0; i < observations_.size(); ++i) {
    explained[i] = explained_by(resource_rules_, *space_, observations_[i]);
    explained_count_ += explained[i] ? 1 : 0;
  }
  // The logistic model next: it is the null model of the value and threshold rules' tests.
  std::vector<const Config*> x;
  std::vector<Status> y;
  for (std::size_t i = 0; i < observations_.size(); ++i) {
    if (explained[i]) continue;
    x.push_back(&observations_[i].config);
    y.push_back(observations_[i].status);
  }
  model_.fit(*space_, x, y, options_.model);
  rules_.learn(*space_, observations_, groups_, options_.rules, [this](const Config& c, std::size_t p) {
    return model_.fitted() ? model_.failure_probability_without_value(c, p) : 1.0;
  }, &explained);
  // The tree models what the range rules (values, global thresholds) and the resource rules leave
  // unexplained; queries those rules cover never reach it.
  x.clear();
  y.clear();
  for (std::size_t i = 0; i < observations_.size(); ++i) {
    const auto& o = observations_[i];
    if (explained[i] || rules_.check_ranges(o.config)) continue;
    x.push_back(&o.config);
    y.push_back(o.status);
  }
  tree_.fit(*space_, x, y, options_.tree);
  slow_.learn(*space_, observations_, options_.min_weight);
  stale_ = false;
}

const LearnedRules& KnowledgeBase::rules() const {
  refresh();
  return rules_;
}

const std::vector<ResourceRule>& KnowledgeBase::resource_rules() const {
  refresh();
  return resource_rules_;
}

const DecisionTree& KnowledgeBase::tree() const {
  refresh();
  return tree_;
}

std::optional<Verdict> KnowledgeBase::hard(const Config& c) const {
  if (const Observation* o = observed(c))
    return is_success(o->status) ? std::nullopt
                                 : std::optional<Verdict>(Verdict{Verdict::Kind::observed, o->status, 1, index_.at(c)});
  if (declared_)
    if (const auto o = declared_(c)) return Verdict{Verdict::Kind::declared, o->status, 0, 0};
  refresh();
  if (auto v = rules_.check(c, observations_)) return v;
  for (std::size_t i = 0; i < resource_rules_.size(); ++i)
    if (resource_rules_[i].predicts_failure(*space_, c))
      return Verdict{Verdict::Kind::resource, resource_rules_[i].status, resource_rules_[i].failures_above, i};
  return std::nullopt;
}

bool KnowledgeBase::known_infeasible(const Config& c) const { return hard(c).has_value(); }

std::string KnowledgeBase::describe(const Verdict& v) const {
  switch (v.kind) {
    case Verdict::Kind::observed:
      return "evaluated: " + space_->label(observations_[v.rule].config) + " failed with " + to_string(v.status);
    case Verdict::Kind::resource:
      return resource_rules_[v.rule].describe(*space_);
    case Verdict::Kind::declared:
      return "decided before compiling (the backend's check)";
    default:
      return rules_.describe(*space_, v, observations_);
  }
}

std::optional<std::string> KnowledgeBase::why_infeasible(const Config& c) const {
  const auto v = hard(c);
  if (!v) return std::nullopt;
  if (v->kind == Verdict::Kind::declared) return "decided before compiling: " + declared_(c)->message;
  return describe(*v);
}

double KnowledgeBase::model_probability(const Config& c) const {
  refresh();
  double p = std::max(tree_.leaf(c).failure_probability(), model_.failure_probability(c));
  // A resource rule's weaker reading (resource_rules.hpp suggests_failure): likely, not certain.
  for (const auto& r : resource_rules_)
    if (r.suggests_failure(*space_, c)) p = std::max(p, confidence(r.failures_above));
  return p;
}

double KnowledgeBase::failure_probability(const Config& c) const {
  if (const Observation* o = observed(c)) return is_success(o->status) ? 0.0 : 1.0;
  const double p = model_probability(c);
  const auto v = hard(c);
  if (v && v->kind == Verdict::Kind::declared) return 1.0;
  return v ? std::max(p, confidence(v->evidence)) : p;
}

Status KnowledgeBase::likely_status(const Config& c) const {
  if (const Observation* o = observed(c)) return o->status;
  if (const auto v = hard(c)) return v->status;
  refresh();
  const auto& leaf = tree_.leaf(c);
  return leaf.majority(leaf.failure_probability() > 0.5);
}

double KnowledgeBase::preference(const Config& c) const {
  refresh();
  return slow_.weight(c);
}

std::vector<std::string> KnowledgeBase::explain() const {
  refresh();
  std::vector<std::string> lines{"knowledge base: " + status_summary(observations_)};
  if (declared_)
    lines.push_back("declared: the configurations the backend rejects before compiling (the launch shape over the "
                    "device's limits) are known to fail from the start");
  for (auto& l : rules_.describe(*space_)) lines.push_back("hard: " + l);
  for (const auto& r : resource_rules_) lines.push_back("resource: " + r.describe(*space_));
  const auto leaves = tree_.describe_failing_leaves(*space_, 0.5);
  lines.push_back("model: CART decision tree over parameter values, " + std::to_string(tree_.leaves()) + " leaves, " +
                  std::to_string(leaves.size()) + " where failures are likely (smoothed P(fail) >= 0.5)");
  for (auto& l : leaves) lines.push_back("model: " + l);
  if (model_.fitted()) {
    const auto raising = model_.describe(*space_, 0.5, 6);
    std::string joined;
    for (const auto& r : raising) joined += (joined.empty() ? "" : ", ") + r;
    lines.push_back("model: logistic regression of failure on parameter values and log2 sizes, " +
                    std::to_string(observations_.size() - explained_count_) + " evaluations" +
                    (explained_count_ ? " (" + std::to_string(explained_count_) +
                                            " failures a resource rule accounts for left out)"
                                      : std::string()) +
                    "; raising P(fail) most (log-odds weights): " +
                    (joined.empty() ? "none above 0.5" : joined));
  }
  for (auto& l : slow_.describe(*space_)) lines.push_back("soft: " + l);
  return lines;
}

nlohmann::json KnowledgeBase::to_json() const {
  nlohmann::json obs = nlohmann::json::array();
  for (const auto& o : observations_) obs.push_back(adaexplore::to_json(o));
  return {{"format", kFormat},
          {"version", kVersion},
          {"parameters", parameters_json(*space_)},
          {"observations", obs},
          {"explanation", explain()}};
}

KnowledgeBase KnowledgeBase::from_json(const Space& space, const nlohmann::json& j, KnowledgeBaseOptions options) {
  if (!j.is_object() || j.value("format", "") != kFormat || j.value("version", 0) != kVersion)
    throw std::invalid_argument(std::string("not a knowledge base of format ") + kFormat + " version " +
                                std::to_string(kVersion));
  const nlohmann::json expected = parameters_json(space);
  if (j.value("parameters", nlohmann::json()) != expected)
    throw std::invalid_argument("knowledge base of another space: stored parameters " +
                                j.value("parameters", nlohmann::json()).dump() + ", this space " + expected.dump());
  KnowledgeBase kb(space, options);
  for (const auto& o : j.at("observations")) kb.observe(observation_from_json(o, space));
  return kb;
}

}  // namespace adaexplore
