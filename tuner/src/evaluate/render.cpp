#include "evaluate/render.hpp"

#include <algorithm>
#include <set>

namespace adaexplore {
namespace {

// Calls on_text(text) for literal runs and on_placeholder(name, line) for each `${NAME}`.
template <typename Text, typename Placeholder>
void scan(const std::string& text, const std::filesystem::path& file, Text on_text, Placeholder on_placeholder) {
  std::size_t line = 1, i = 0, run = 0;
  while (i < text.size()) {
    if (text[i] == '\n') ++line;
    if (text[i] != '$' || i + 1 >= text.size()) {
      ++i;
      continue;
    }
    if (text[i + 1] == '$') {
      on_text(text.substr(run, i + 1 - run));
      i += 2;
      run = i;
      continue;
    }
    if (text[i + 1] != '{') {
      ++i;
      continue;
    }
    const std::size_t close = text.find('}', i + 2);
    const std::size_t newline = text.find('\n', i + 2);
    if (close == std::string::npos || (newline != std::string::npos && newline < close))
      throw TemplateError(file.string() + ":" + std::to_string(line) + ": unterminated placeholder '${' (write $$ for a literal $)");
    on_text(text.substr(run, i - run));
    on_placeholder(text.substr(i + 2, close - i - 2), line);
    i = close + 1;
    run = i;
  }
  on_text(text.substr(run));
}

std::string known_list(const Space& space) {
  std::string s;
  for (const auto& p : space.parameters()) s += (s.empty() ? "" : ", ") + p.name;
  return s;
}

}  // namespace

void check_template(const std::string& text, const std::filesystem::path& file, const Space& space,
                    const std::vector<std::string>& allow_unused) {
  std::set<std::string> used;
  scan(text, file, [](const std::string&) {},
       [&](const std::string& name, std::size_t line) {
         if (!space.index_of(name))
           throw TemplateError(file.string() + ":" + std::to_string(line) + ": unknown placeholder ${" + name +
                               "} (parameters: " + known_list(space) + ")");
         used.insert(name);
       });
  std::string unused;
  for (const auto& p : space.parameters())
    if (!used.count(p.name) && std::find(allow_unused.begin(), allow_unused.end(), p.name) == allow_unused.end())
      unused += (unused.empty() ? "" : ", ") + p.name;
  if (!unused.empty())
    throw TemplateError(file.string() + ":1: parameter(s) " + unused +
                        " never used in the template: add ${NAME} where the value belongs, or remove the parameter");
}

std::string render_template(const std::string& text, const std::filesystem::path& file, const Space& space,
                            const Config& config) {
  std::string out;
  out.reserve(text.size() + 64);
  scan(text, file, [&](const std::string& t) { out += t; },
       [&](const std::string& name, std::size_t line) {
         auto i = space.index_of(name);
         if (!i) throw TemplateError(file.string() + ":" + std::to_string(line) + ": unknown placeholder ${" + name + "}");
         out += space.value(config, *i).text;
       });
  return out;
}

}  // namespace adaexplore
