// Names that reach the generated header: the kernel's name (the default namespace
// adaexplore::<name>), the namespace's parts, the parameters' and the problem sizes' names. Each
// must be an identifier the header can declare: not a C++ keyword, not a macro a translation unit
// may see (NULL, assert, linux), not reserved to the compiler (a double underscore, _ and a
// capital letter), and, for parameters and sizes, not a name the header declares itself (kTuned,
// select, ...). The list is tuner/src/model/reserved_names.inc, which cmake/AdaExplore.cmake reads
// too: the spec (spec.cpp, sizes.cpp) and adaexplore_tune_kernel() refuse the same names, before
// any tuning.
#pragma once

#include <string>

namespace adaexplore {

/// Whether `text` is a C++ identifier: [A-Za-z_][A-Za-z0-9_]* (the form every name of a spec takes).
bool is_identifier(const std::string& text);
/// Whether `text` is identifiers joined by ::, e.g. blas::tuning or ns::kernel.
bool is_qualified_identifier(const std::string& text);

/// Where a name goes in the header.
enum class NameUse {
  kernel,      // the spec's "name": the default namespace adaexplore::<name>, the file <name>.hpp
  name_space,  // one part of the spec's "namespace" (blas in blas::tuning)
  parameter,   // a parameter: one constant (and one member) per parameter
  size,        // a problem size's name: a member of Size and an argument of select()
};

/// Why `name` cannot be written into the header as `use`: "a C++ keyword", "a macro of the C and
/// C++ standard libraries, the compiler or the CUDA runtime", ...; empty when it can. `name` is
/// assumed to be an identifier already ([A-Za-z_][A-Za-z0-9_]*).
std::string reserved_name_reason(const std::string& name, NameUse use);

/// The whole refusal, empty when `name` is fine: "'int' is a C++ keyword or a name reserved in the
/// generated header (a C++ keyword); rename the parameter, e.g. int_value (and its ${int}
/// placeholders)".
std::string reserved_name_problem(const std::string& name, NameUse use);

}  // namespace adaexplore
