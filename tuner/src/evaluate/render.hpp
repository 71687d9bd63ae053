// Template rendering: `${NAME}` placeholders replaced by parameter values. A macro-configured
// kernel (the spec's "kernel_source") is rendered through a template made for it (template_text).
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
#include "model/spec.hpp"

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

/// The template of `spec`: its file's text, or for a macro-configured kernel (the spec's
/// "kernel_source", spec.macro_kernel) a template that defines every parameter as a macro and then
/// includes the source by its absolute path:
///   #define TILE ${TILE}
///   #define UNROLL ${UNROLL}
///   #include "/path/to/kernel.cu"
/// so that the source is compiled unchanged, its own includes found beside it. Throws
/// std::runtime_error when the file cannot be read.
std::string template_text(const Spec& spec);

/// The name the rendered template gets in a configuration's folder (the name a benchmark that is
/// compiled whole with it includes): the template's without ".in" ("gemm.cuh.in" -> "gemm.cuh");
/// for a macro-configured kernel "<name>_configured.cuh" (never the source's own name, which a
/// benchmark beside the source would find unconfigured).
std::string rendered_name(const Spec& spec);

/// Substitutes every placeholder with the configuration's value text.
std::string render_template(const std::string& text, const std::filesystem::path& file, const Space& space,
                            const Config& config);

}  // namespace adaexplore
