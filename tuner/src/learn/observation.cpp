#include "learn/observation.hpp"

#include <algorithm>
#include <stdexcept>

#include "evaluate/ptxas.hpp"

namespace adaexplore {
namespace {

const char* figure_name(Resource r) {
  switch (r) {
    case Resource::shared_memory:
      return "shared_bytes";
    case Resource::local_memory:
      return "stack_bytes";
    case Resource::registers:
      return "registers";
    case Resource::threads:
      return "threads";
    default:
      return nullptr;
  }
}

// The largest figure over the kernels ptxas reported (the one that meets a limit first).
void add_resource_figures(const std::vector<KernelResources>& kernels, Observation& o) {
  if (kernels.empty()) return;
  double shared = 0, registers = 0, stack = 0;
  for (const auto& k : kernels) {
    shared = std::max(shared, static_cast<double>(k.shared_bytes));
    registers = std::max(registers, static_cast<double>(k.registers));
    stack = std::max(stack, static_cast<double>(k.stack_bytes));
  }
  o.figures["shared_bytes"] = shared;
  o.figures["registers"] = registers;
  o.figures["stack_bytes"] = stack;
}

void add_numbers(const nlohmann::json& object, std::map<std::string, double>& into) {
  if (!object.is_object()) return;
  for (const auto& [name, value] : object.items())
    if (value.is_number()) into[name] = value.get<double>();
}

void add_message_figures(const std::string& message, Observation& o) {
  const auto error = find_ptxas_resource_error(message);
  if (!error || error->used <= 0) return;
  const char* name = figure_name(error->what);
  if (!name) return;
  o.figures[name] = static_cast<double>(error->used);
  if (error->limit > 0) o.limits[name] = static_cast<double>(error->limit);
}

}  // namespace

Observation observation_of(const Outcome& outcome) {
  Observation o;
  o.config = outcome.config;
  o.status = outcome.status;
  if (is_success(outcome.status)) o.objective = outcome.objective;
  add_resource_figures(outcome.resources, o);
  if (outcome.extra.is_object()) {
    add_numbers(outcome.extra.value("figures", nlohmann::json()), o.figures);
    add_numbers(outcome.extra.value("limits", nlohmann::json()), o.limits);
  }
  if (!is_success(outcome.status) && !outcome.message.empty()) add_message_figures(outcome.message, o);
  return o;
}

nlohmann::json to_json(const Observation& o) {
  nlohmann::json j = {{"config", o.config}, {"status", to_string(o.status)}};
  if (o.objective) j["objective"] = *o.objective;
  if (!o.figures.empty()) j["figures"] = o.figures;
  if (!o.limits.empty()) j["limits"] = o.limits;
  return j;
}

Observation observation_from_json(const nlohmann::json& j, const Space& space) {
  Observation o;
  o.config = j.at("config").get<Config>();
  if (o.config.size() != space.dimension())
    throw std::invalid_argument("observation with " + std::to_string(o.config.size()) + " parameters, the space has " +
                                std::to_string(space.dimension()));
  for (std::size_t i = 0; i < o.config.size(); ++i)
    if (o.config[i] >= space.parameters()[i].values.size())
      throw std::invalid_argument("observation: value index " + std::to_string(o.config[i]) + " of parameter " +
                                  space.parameters()[i].name + " is out of range");
  o.status = status_from_string(j.at("status").get<std::string>());
  if (j.contains("objective")) o.objective = j["objective"].get<double>();
  if (j.contains("figures")) o.figures = j["figures"].get<std::map<std::string, double>>();
  if (j.contains("limits")) o.limits = j["limits"].get<std::map<std::string, double>>();
  return o;
}

}  // namespace adaexplore
