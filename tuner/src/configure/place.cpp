// Where a key's results, header and report go (tuning.hpp).
#include <algorithm>

#include "configure/tuning.hpp"
#include "emit/report.hpp"
#include "store/database.hpp"
#include "store/key.hpp"

namespace adaexplore {

std::filesystem::path default_path(const Spec& spec, const std::filesystem::path& given, const std::string& leaf) {
  return given.empty() ? spec.work_dir / leaf : given;
}

std::filesystem::path header_path_of(const Spec& spec, const Request& request) {
  return default_path(spec, request.header, spec.name + ".hpp");
}

// The tuned headers are outputs, never inputs: this tuning's, and (generated) the folders of the
// build tree's tuned headers, other kernels' included, stay out of the key even when the template
// or the benchmark includes one (a library header that includes its own tuned header: else every
// tuning that changes it would set its own results aside).
nlohmann::json included_headers(const Request& request, Backend& backend, const std::filesystem::path& header_path) {
  std::vector<std::filesystem::path> outputs = {std::filesystem::absolute(header_path)};
  for (const auto& g : request.generated) outputs.push_back(std::filesystem::absolute(g));
  return backend.included_headers(outputs);
}

KeyPlace key_place(const Request& request, const Spec& spec, Backend& backend, const nlohmann::json& includes,
                   const std::string& results_leaf) {
  KeyPlace place;
  place.leaf = results_leaf;
  place.header = tuning_header(spec, backend.name(), backend.device(), includes);
  const ResultsHeader& header = place.header;
  place.results = !request.database.empty() ? database_file(request.database, spec.name, header.key)
                                            : default_path(spec, request.results, "results.jsonl");
  if (request.database.empty() && !request.results.empty() && !results_leaf.empty())  // R, sizes: R.<size>.jsonl
    place.results = place.results.parent_path() / (place.results.stem().string() + "." + results_leaf +
                                                   place.results.extension().string());
  return place;
}

std::filesystem::path report_path(const Request& request, const std::filesystem::path& results, const std::string& leaf) {
  if (request.report.empty()) return report_path_for(results);
  const std::filesystem::path& p = request.report;
  if (leaf.empty()) return p;
  return p.parent_path() / (p.stem().string() + "." + leaf + p.extension().string());
}

const Outcome* outcome_of(const std::vector<Outcome>& outcomes, const Config& config) {
  const auto it = std::find_if(outcomes.begin(), outcomes.end(), [&](const Outcome& o) { return o.config == config; });
  return it == outcomes.end() ? nullptr : &*it;
}

std::string device_words(const nlohmann::json& d) {
  std::string s = d.value("name", std::string("unknown device"));
  if (d.contains("compute_capability") && d["compute_capability"].is_string())
    s += ", compute capability " + d["compute_capability"].get<std::string>();
  return s;
}

void print_warnings(const Tuning& t, const std::vector<std::string>& warnings) {
  for (const auto& w : warnings) t.err() << "[adaexplore] warning: " << w << "\n";
}

Spec size_spec(const Spec& spec, std::size_t index) {
  Spec s = spec;
  s.size = spec.sizes.sizes[index];
  s.work_dir = spec.work_dir / ("size-" + spec.sizes.slug(*s.size));
  return s;
}

}  // namespace adaexplore
