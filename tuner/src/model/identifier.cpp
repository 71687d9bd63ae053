#include "model/identifier.hpp"

#include <map>
#include <regex>

namespace adaexplore {
namespace {

enum Group { kKeyword, kMacro, kStd, kHeader };

const std::map<std::string, Group>& reserved_names() {
  static const std::map<std::string, Group> names = {
#include "model/reserved_names.inc"
  };
  return names;
}

std::string group_reason(Group g) {
  switch (g) {
    case kKeyword: return "a C++ keyword";
    case kMacro: return "a macro of the C and C++ standard libraries, the compiler or the CUDA runtime";
    case kStd: return "the standard library's namespace, which the header names in std::size_t";
    case kHeader: break;
  }
  return "a name the generated header declares or uses itself";
}

bool applies(Group g, NameUse use) {
  // A namespace (or the kernel's name, the default namespace's last part) may share a name with
  // what the header declares inside it; keywords, macros and std it may not.
  return g != kHeader || use == NameUse::parameter || use == NameUse::size;
}

bool digits_only(const std::string& s) {
  return !s.empty() && s.find_first_not_of("0123456789") == std::string::npos;
}

std::string use_words(NameUse use, const std::string& name, const std::string& suggestion) {
  switch (use) {
    case NameUse::kernel: return "rename the kernel, e.g. " + suggestion;
    case NameUse::name_space: return "choose another namespace part, e.g. " + suggestion;
    case NameUse::parameter:
      return "rename the parameter, e.g. " + suggestion + " (and its ${" + name + "} placeholders in the template)";
    case NameUse::size: return "rename the size, e.g. " + suggestion;
  }
  return "rename it";
}

}  // namespace

std::string reserved_name_reason(const std::string& name, NameUse use) {
  const auto it = reserved_names().find(name);
  if (it != reserved_names().end() && applies(it->second, use)) return group_reason(it->second);
  if (name.find("__") != std::string::npos || (name.size() > 1 && name[0] == '_' && name[1] >= 'A' && name[1] <= 'Z'))
    return "reserved to the compiler and the standard library: a double underscore, or _ and a capital letter";
  if ((use == NameUse::parameter || use == NameUse::size) && name.rfind("kSm", 0) == 0 && digits_only(name.substr(3)))
    return "a constant of the header for several GPUs (kSm<compute capability>)";
  return "";
}

std::string reserved_name_problem(const std::string& name, NameUse use) {
  const std::string why = reserved_name_reason(name, use);
  if (why.empty()) return "";
  std::string suggestion;  // the name without its leading and doubled underscores, then _value
  for (char c : name)
    if (c != '_' || (!suggestion.empty() && suggestion.back() != '_')) suggestion += c;
  while (!suggestion.empty() && suggestion.back() == '_') suggestion.pop_back();
  if (suggestion.empty() || !reserved_name_reason(suggestion, use).empty() || suggestion == name)
    suggestion = (suggestion.empty() ? std::string("name") : suggestion) + "_value";
  return "'" + name + "' is a C++ keyword or a name reserved in the generated header (" + why + "); " +
         use_words(use, name, suggestion);
}

bool is_identifier(const std::string& text) {
  static const std::regex identifier("[A-Za-z_][A-Za-z0-9_]*");
  return std::regex_match(text, identifier);
}

bool is_qualified_identifier(const std::string& text) {
  static const std::regex qualified("[A-Za-z_][A-Za-z0-9_]*(::[A-Za-z_][A-Za-z0-9_]*)*");
  return std::regex_match(text, qualified);
}

}  // namespace adaexplore
