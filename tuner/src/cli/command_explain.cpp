// `explain`: what a tuning's outcomes teach, in words: the knowledge base's learned rules
// (knowledge_base.hpp) and the failures that line up with one parameter value
// (failure_summary.hpp), each with the evaluations behind it. Reads; writes nothing.
#include <iostream>
#include <memory>

#include "cli/commands.hpp"
#include "learn/failure_summary.hpp"
#include "learn/knowledge_base.hpp"
#include "store/results.hpp"
#include "model/spec.hpp"

namespace adaexplore {
namespace {

struct ExplainArgs {
  std::string spec, results;
  bool json = false;
};

int run_explain(const ExplainArgs& a) {
  const Spec spec = load_spec(a.spec);
  const ResultsFile file = read_results(a.results, spec.space);
  for (const auto& w : file.warnings) std::cerr << "[adaexplore] warning: " << w << "\n";
  KnowledgeBase kb(spec.space);
  for (const auto& o : file.outcomes) kb.observe(o);
  if (a.json) {
    std::cout << kb.to_json().dump(2) << std::endl;
    return kExitOk;
  }
  std::cout << spec.name << " (" << a.results << "):\n";
  for (const auto& line : kb.explain()) std::cout << "  " << line << "\n";
  for (const auto& line : failure_alignment(spec.space, file.outcomes)) std::cout << "  failures: " << line << "\n";
  std::cout << std::flush;
  return kExitOk;
}

}  // namespace

Command register_explain_command(CLI::App& app) {
  auto a = std::make_shared<ExplainArgs>();
  auto* sub = app.add_subcommand("explain",
                                 "Print what the outcomes of a tuning teach: learned hard rules, resource rules, "
                                 "where the failure model expects failures, soft preferences, and failures that "
                                 "line up with one parameter value, each with the evaluations behind it.");
  sub->add_option("--spec", a->spec, "tuning spec (JSON) the results belong to")->required()->check(CLI::ExistingFile);
  sub->add_option("--results", a->results, "results file (JSON Lines, as `tune` writes it)")
      ->required()
      ->check(CLI::ExistingFile);
  sub->add_flag("--json", a->json, "print the knowledge base as JSON (its observations and explanation) instead");
  return {sub, [a] { return run_explain(*a); }};
}

}  // namespace adaexplore
