#include "learn/features.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "evaluate/resource_check.hpp"
#include "model/kernel_spec.hpp"

namespace adaexplore {
namespace {

// The value of `e` for `config` at `size`: a finite positive number, else nothing.
std::optional<double> positive(const Expr& e, const Space& space, const Config& config,
                               const std::vector<long long>* size) {
  const ExprValue v = e.evaluate([&](std::size_t i) { return launch_variable(space, config, size, i); });
  if (v.is_string || !std::isfinite(v.number) || v.number <= 0) return std::nullopt;
  return v.number;
}

std::optional<double> product(const std::vector<Expr>& dims, const Space& space, const Config& config,
                              const std::vector<long long>* size) {
  if (dims.empty()) return std::nullopt;
  double p = 1;
  for (const Expr& e : dims) {
    const auto v = positive(e, space, config, size);
    if (!v) return std::nullopt;
    p *= *v;
  }
  return p;
}

// Every parameter an expression reads must be a parameter or a size name (it was parsed against
// those); an index past them means the expression was parsed against other names.
void check_names(const std::optional<Expr>& e, std::size_t names, const char* what) {
  if (!e) return;
  for (std::size_t i : e->parameters())
    if (i >= names)
      throw std::invalid_argument(std::string("behavioural features: launch.") + what + " \"" + e->text() +
                                  "\" reads a name that is neither a parameter nor a size name");
}

// A missing feature's model input: below log2 of every positive double (log2 of the smallest
// subnormal is -1074), so that no real value encodes as it and a tree's split separates the
// missing from every real value (work per thread 0.5 is log2 -1, a real value).
constexpr double kMissing = FeatureMap::kMissingInput;

double log2_or(const std::optional<double>& v) { return v ? std::log2(*v) : kMissing; }

}  // namespace

nlohmann::json Behaviour::to_json() const {
  nlohmann::json j = nlohmann::json::object();
  auto put = [&](const char* key, const std::optional<double>& v) {
    if (v) j[key] = *v;
  };
  put("threads_per_block", threads_per_block);
  put("blocks", blocks);
  put("total_threads", total_threads);
  put("work_per_thread", work_per_thread);
  put("waves", waves);
  put("dynamic_shared_bytes", dynamic_shared_bytes);
  put("registers", registers);
  put("shared_bytes", shared_bytes);
  put("blocks_per_sm", blocks_per_sm);
  put("occupancy", occupancy);
  put("waves_resident", waves_resident);
  return j;
}

FeatureMap::FeatureMap(const Space& space, FeatureContext context) : space_(&space), context_(std::move(context)) {
  const std::size_t names = space.dimension() + context_.size_names.size();
  const LaunchSpec& l = context_.launch;
  check_names(l.threads_per_block, names, "threads_per_block");
  check_names(l.dynamic_shared_bytes, names, "dynamic_shared_bytes");
  for (const Expr& e : l.block) check_names(e, names, "block");
  for (const Expr& e : l.grid) check_names(e, names, "grid");
  has_threads_ = l.threads_per_block.has_value() || !l.block.empty();
  has_blocks_ = !l.grid.empty();
  has_shared_ = l.dynamic_shared_bytes.has_value();
  if (has_threads_) names_.push_back("log2_threads_per_block");
  if (has_blocks_) names_.push_back("log2_blocks");
  if (has_threads_ && has_blocks_) {
    names_.push_back("log2_total_threads");
    if (!context_.size_names.empty() || context_.volume > 0) names_.push_back("log2_work_per_thread");
  }
  if (has_blocks_ && context_.sm_count > 0) names_.push_back("log2_waves");
  if (has_shared_) names_.push_back("log2_1_plus_dynamic_shared_bytes");
  for (const std::string& n : context_.size_names) names_.push_back("ln_" + n);
}

Behaviour FeatureMap::at(const Config& config, const std::vector<long long>* size) const {
  Behaviour b;
  if (!space_) return b;
  const LaunchSpec& l = context_.launch;
  if (l.threads_per_block)
    b.threads_per_block = positive(*l.threads_per_block, *space_, config, size);
  else
    b.threads_per_block = product(l.block, *space_, config, size);
  b.blocks = product(l.grid, *space_, config, size);
  if (b.threads_per_block && b.blocks) b.total_threads = *b.threads_per_block * *b.blocks;
  double volume = context_.volume;
  if (size && !size->empty()) {
    volume = 1;
    for (long long v : *size) volume *= static_cast<double>(v);
  }
  if (b.total_threads && volume > 0) b.work_per_thread = volume / *b.total_threads;
  if (b.blocks && context_.sm_count > 0) b.waves = *b.blocks / context_.sm_count;
  if (l.dynamic_shared_bytes) {
    const ExprValue v =
        l.dynamic_shared_bytes->evaluate([&](std::size_t i) { return launch_variable(*space_, config, size, i); });
    if (!v.is_string && std::isfinite(v.number) && v.number >= 0) b.dynamic_shared_bytes = v.number;
  }
  return b;
}

Behaviour FeatureMap::compiled(const Config& config, const std::vector<KernelResources>& resources,
                               const std::vector<long long>* size) const {
  Behaviour b = at(config, size);
  if (resources.empty()) return b;
  KernelResources widest = resources.front();
  for (const auto& k : resources) {
    widest.registers = std::max(widest.registers, k.registers);
    widest.shared_bytes = std::max(widest.shared_bytes, k.shared_bytes);
  }
  b.registers = widest.registers;
  const long dynamic = b.dynamic_shared_bytes ? static_cast<long>(*b.dynamic_shared_bytes) : 0;
  b.shared_bytes = static_cast<double>(widest.shared_bytes + dynamic);
  if (!context_.limits || !b.threads_per_block) return b;
  const Occupancy occ = occupancy(widest, *context_.limits, static_cast<int>(*b.threads_per_block), dynamic,
                                  context_.max_blocks_per_sm);
  b.blocks_per_sm = occ.blocks_per_sm;
  b.occupancy = occ.fraction;
  if (b.blocks && context_.sm_count > 0 && occ.blocks_per_sm > 0)
    b.waves_resident = *b.blocks / (static_cast<double>(occ.blocks_per_sm) * context_.sm_count);
  return b;
}

std::vector<double> FeatureMap::model_input(const Config& config, const std::vector<long long>* size) const {
  std::vector<double> x;
  if (names_.empty()) return x;
  const Behaviour b = at(config, size);
  if (has_threads_) x.push_back(log2_or(b.threads_per_block));
  if (has_blocks_) x.push_back(log2_or(b.blocks));
  if (has_threads_ && has_blocks_) {
    x.push_back(log2_or(b.total_threads));
    if (!context_.size_names.empty() || context_.volume > 0) x.push_back(log2_or(b.work_per_thread));
  }
  if (has_blocks_ && context_.sm_count > 0) x.push_back(log2_or(b.waves));
  if (has_shared_)
    x.push_back(b.dynamic_shared_bytes ? std::log2(1.0 + *b.dynamic_shared_bytes) : kMissing);
  for (std::size_t k = 0; k < context_.size_names.size(); ++k)
    x.push_back(size && k < size->size() ? std::log(static_cast<double>((*size)[k])) : 0.0);
  return x;
}

std::vector<std::string> FeatureMap::model_input_names() const { return names_; }

}  // namespace adaexplore
