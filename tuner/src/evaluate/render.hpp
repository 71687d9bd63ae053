// Template rendering: `${NAME}` placeholders replaced by parameter values.
//
// A template is checked once against the space (check_template): an unknown placeholder, an
// unterminated `${`, or a parameter that appears nowhere in the template is an error naming the
// file and line. `$$` stands for a literal `$`.
#pragma once

#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "model/space.hpp"

namespace adaexplore {

class TemplateError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Throws TemplateError ("<file>:<line>: ...") for unknown placeholders or unused parameters.
/// `file` is only used in messages. `allow_unused` lists parameters that may be absent (e.g.
/// parameters only the benchmark reads through -D definitions).
void check_template(const std::string& text, const std::filesystem::path& file, const Space& space,
                    const std::vector<std::string>& allow_unused = {});

/// Substitutes every placeholder with the configuration's value text.
std::string render_template(const std::string& text, const std::filesystem::path& file, const Space& space,
                            const Config& config);

}  // namespace adaexplore
