#include "model/outcome.hpp"

#include <stdexcept>

namespace adaexplore {

const char* to_string(Status s) {
  switch (s) {
#define ADAEXPLORE_STATUS_CASE(name, from_benchmark) \
  case Status::name: return status::name;
    ADAEXPLORE_STATUSES(ADAEXPLORE_STATUS_CASE)
#undef ADAEXPLORE_STATUS_CASE
  }
  return "?";
}

bool from_benchmark(Status s) {
  switch (s) {
#define ADAEXPLORE_STATUS_CASE(name, from_benchmark) \
  case Status::name: return from_benchmark;
    ADAEXPLORE_STATUSES(ADAEXPLORE_STATUS_CASE)
#undef ADAEXPLORE_STATUS_CASE
  }
  return false;
}

Status status_from_string(const std::string& s) {
  for (Status st : kAllStatuses)
    if (s == to_string(st)) return st;
  throw std::invalid_argument("unknown status '" + s + "'");
}

nlohmann::json record_config(const Config& config, const Space& space) {
  nlohmann::json j = nlohmann::json::object();
  for (std::size_t i = 0; i < space.dimension(); ++i) {
    const Value& v = space.value(config, i);
    j[space.parameters()[i].name] = v.numeric ? nlohmann::json(v.number) : nlohmann::json(v.text);
  }
  return j;
}

nlohmann::json to_json(const Outcome& o, const Space& space) {
  nlohmann::json j = {{"label", o.label.empty() ? space.label(o.config) : o.label},
                      {"config", record_config(o.config, space)},
                      {"status", to_string(o.status)}};
  j["objective_ms"] = o.objective ? nlohmann::json(*o.objective) : nlohmann::json(nullptr);
  if (o.timing)
    j["timing"] = {{"median_ms", o.timing->median_ms}, {"mean_ms", o.timing->mean_ms}, {"min_ms", o.timing->min_ms},
                   {"max_ms", o.timing->max_ms},       {"stdev_ms", o.timing->stdev_ms}, {"samples", o.timing->samples}};
  if (o.timing && !o.timing->values_ms.empty()) j["timing"]["values_ms"] = o.timing->values_ms;
  if (!o.resources.empty()) {
    nlohmann::json r = nlohmann::json::array();
    for (const auto& k : o.resources)
      r.push_back({{"kernel", k.kernel}, {"registers", k.registers}, {"shared_bytes", k.shared_bytes},
                   {"stack_bytes", k.stack_bytes}, {"spill_store_bytes", k.spill_store_bytes},
                   {"spill_load_bytes", k.spill_load_bytes}, {"constant_bytes", k.constant_bytes},
                   {"barriers", k.barriers}, {"demangled", k.demangled}, {"arch", k.arch}});
    j["resources"] = r;
  }
  if (!o.message.empty()) j["message"] = o.message;
  if (o.exit_code) j["exit_code"] = *o.exit_code;
  if (o.signal) j["signal"] = *o.signal;
  if (!o.stage_ms.empty()) j["stage_ms"] = o.stage_ms;
  if (!o.extra.empty()) j["extra"] = o.extra;
  return j;
}

std::vector<std::pair<std::string, std::string>> config_texts(const nlohmann::json& config) {
  std::vector<std::pair<std::string, std::string>> texts;
  for (const auto& [name, value] : config.items()) {
    if (!value.is_string() && !value.is_number())
      throw std::invalid_argument(name + " is " + value.dump() + ", not a number or a string");
    texts.emplace_back(name, value.is_string() ? value.get<std::string>() : Value::from_number(value.get<double>()).text);
  }
  return texts;
}

Outcome outcome_from_json(const nlohmann::json& j, const Space& space) {
  Outcome o;
  o.config = space.config_from_texts(config_texts(j.at("config")));
  o.label = space.label(o.config);
  o.status = status_from_string(j.at("status").get<std::string>());
  if (j.contains("objective_ms") && j["objective_ms"].is_number()) o.objective = j["objective_ms"].get<double>();
  if (j.contains("timing")) {
    const auto& t = j["timing"];
    o.timing = Timing{t.value("median_ms", 0.0), t.value("mean_ms", 0.0), t.value("min_ms", 0.0),
                      t.value("max_ms", 0.0),    t.value("stdev_ms", 0.0), t.value("samples", 0), {}};
    if (t.contains("values_ms")) o.timing->values_ms = t["values_ms"].get<std::vector<double>>();  // optional
  }
  if (j.contains("resources"))
    for (const auto& r : j["resources"])
      o.resources.push_back({r.value("kernel", ""), r.value("registers", 0), r.value("shared_bytes", 0L),
                             r.value("stack_bytes", 0L), r.value("spill_store_bytes", 0L),
                             r.value("spill_load_bytes", 0L), r.value("constant_bytes", 0L),
                             r.value("barriers", 0), r.value("demangled", ""), r.value("arch", "")});
  o.message = j.value("message", "");
  if (j.contains("exit_code")) o.exit_code = j["exit_code"].get<int>();
  if (j.contains("signal")) o.signal = j["signal"].get<int>();
  if (j.contains("stage_ms")) o.stage_ms = j["stage_ms"].get<std::map<std::string, double>>();
  if (j.contains("extra")) o.extra = j["extra"];
  return o;
}

std::map<std::string, std::size_t> count_statuses(const std::vector<Outcome>& outcomes) {
  std::map<std::string, std::size_t> counts;
  for (const auto& o : outcomes) ++counts[to_string(o.status)];
  return counts;
}

}  // namespace adaexplore
