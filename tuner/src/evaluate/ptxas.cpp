#include "evaluate/ptxas.hpp"

#include <cxxabi.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <memory>
#include <regex>

namespace adaexplore {
namespace {

constexpr const char* kMarkers[] = {"ptxas info", "ptxas warning", "ptxas error", "ptxas fatal"};

// The first marker at or after `from`, or npos.
std::size_t next_marker(const std::string& text, std::size_t from) {
  std::size_t best = std::string::npos;
  for (const char* marker : kMarkers) best = std::min(best, text.find(marker, from));
  return best;
}

// Lines, where a ptxas marker also starts a line: stdout and stderr may be glued together.
std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = std::min(text.find('\n', start), next_marker(text, start + 1));
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(start, end - start);
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
    lines.push_back(std::move(line));
    start = (end < text.size() && text[end] == '\n') ? end + 1 : end;
  }
  return lines;
}

bool contains(const std::string& text, const char* what) { return text.find(what) != std::string::npos; }

// Digits (hex digits for base 16) starting at `pos`; saturates instead of throwing.
std::optional<long> digits_at(const std::string& text, std::size_t pos, int base = 10) {
  std::size_t end = pos;
  auto is_digit = [base](unsigned char c) { return base == 16 ? std::isxdigit(c) : std::isdigit(c); };
  while (end < text.size() && is_digit(static_cast<unsigned char>(text[end]))) ++end;
  if (end == pos) return std::nullopt;
  return std::strtol(text.substr(pos, end - pos).c_str(), nullptr, base);
}

// The number right after the first `prefix` ("0x" already in the prefix for hex).
std::optional<long> number_after(const std::string& text, const std::string& prefix, int base = 10) {
  const std::size_t at = text.find(prefix);
  if (at == std::string::npos) return std::nullopt;
  return digits_at(text, at + prefix.size(), base);
}

// The decimal number right before the first `suffix` ("1024" in "1024 bytes smem").
std::optional<long> number_before(const std::string& text, const std::string& suffix) {
  const std::size_t at = text.find(suffix);
  if (at == std::string::npos) return std::nullopt;
  std::size_t begin = at;
  while (begin > 0 && std::isdigit(static_cast<unsigned char>(text[begin - 1]))) --begin;
  return digits_at(text, begin);
}

// The hexadecimal number "0x..." right before the first `suffix` ("0xc000" in "0xc000 max)").
std::optional<long> hex_before(const std::string& text, const std::string& suffix) {
  const std::size_t at = text.find(suffix);
  if (at == std::string::npos) return std::nullopt;
  std::size_t begin = at;
  while (begin > 0 && std::isxdigit(static_cast<unsigned char>(text[begin - 1]))) --begin;
  if (begin < 2 || text.compare(begin - 2, 2, "0x") != 0) return std::nullopt;
  return digits_at(text, begin, 16);
}

// The text between `open` and the next `close`.
std::optional<std::string> between(const std::string& text, const std::string& open, char close) {
  const std::size_t at = text.find(open);
  if (at == std::string::npos) return std::nullopt;
  const std::size_t begin = at + open.size();
  const std::size_t end = text.find(close, begin);
  if (end == std::string::npos) return std::nullopt;
  return text.substr(begin, end - begin);
}

// The whitespace-delimited word after `prefix`, without a trailing '.'.
std::string word_after(const std::string& text, const std::string& prefix) {
  const std::size_t at = text.find(prefix);
  if (at == std::string::npos) return "";
  const std::size_t begin = at + prefix.size();
  std::size_t end = begin;
  while (end < text.size() && !std::isspace(static_cast<unsigned char>(text[end]))) ++end;
  std::string word = text.substr(begin, end - begin);
  if (!word.empty() && word.back() == '.') word.pop_back();
  return word;
}

// "Compiling entry function 'K' for 'sm_90'" starts a kernel's record.
std::optional<KernelResources> entry_header(const std::string& line) {
  auto name = between(line, "Compiling entry function '", '\'');
  if (!name) return std::nullopt;
  KernelResources k;
  k.kernel = *name;
  k.demangled = demangle(*name);
  k.arch = between(line, "' for '", '\'').value_or("");
  return k;
}

// "Function properties for K": the function whose stack figures the next line gives.
std::optional<std::string> properties_name(const std::string& line) {
  const std::string prefix = "Function properties for ";
  const std::size_t at = line.find(prefix);
  if (at == std::string::npos) return std::nullopt;
  return word_after(line, prefix);
}

// "    128 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads"
void apply_frame(const std::string& line, KernelResources& k) {
  k.stack_bytes = std::max(k.stack_bytes, number_before(line, " bytes stack frame").value_or(0));
  k.spill_store_bytes = number_before(line, " bytes spill stores").value_or(0);
  k.spill_load_bytes = number_before(line, " bytes spill loads").value_or(0);
}

// "Used 38 registers, used 0 barriers, 128 bytes cumulative stack size, 368 bytes cmem[0]"
void apply_usage(const std::string& line, KernelResources& k) {
  k.registers = static_cast<int>(number_before(line, " register").value_or(0));
  k.barriers = static_cast<int>(number_before(line, " barrier").value_or(0));
  k.shared_bytes = number_before(line, " bytes smem").value_or(0);
  k.constant_bytes = number_before(line, " bytes cmem[0]").value_or(0);
  k.stack_bytes = std::max(k.stack_bytes, number_before(line, " bytes cumulative stack size").value_or(0));
}

Resource resource_named(const std::string& word) {
  if (word == "shared") return Resource::shared_memory;
  if (word == "local") return Resource::local_memory;
  if (word == "constant" || word == "data") return Resource::constant_memory;  // "data for compiler-generated constants"
  if (word == "parameter") return Resource::parameter_space;
  return Resource::unspecified;
}

// "Entry function 'K' uses too much shared data (0xe2e0 bytes, 0xc000 max)" and its variants.
std::optional<PtxasResourceError> too_much_data(const std::string& line) {
  if (!contains(line, "uses too much ")) return std::nullopt;
  PtxasResourceError e;
  e.kernel = between(line, "Entry function '", '\'').value_or("");
  std::string word = word_after(line, "uses too much ");
  if (word == "global") word = word_after(line, "uses too much global ");
  e.what = resource_named(word);
  const std::size_t paren = line.find(" (", line.find("uses too much "));
  if (paren != std::string::npos) {
    const std::string figures = line.substr(paren);
    e.used = number_after(figures, "0x", 16).value_or(0) + number_after(figures, " + 0x", 16).value_or(0);
    e.limit = hex_before(figures, " max)").value_or(0);
  }
  return e;
}

// "K.cu(64): Error: Formal parameter space overflowed (36008 bytes required, max 32764 bytes
// allowed) in function K" (the front end, before ptxas).
std::optional<PtxasResourceError> parameter_overflow(const std::string& line) {
  if (!contains(line, "Formal parameter space overflowed")) return std::nullopt;
  return PtxasResourceError{word_after(line, " in function "), Resource::parameter_space,
                            number_after(line, "overflowed (").value_or(0),
                            number_after(line, " max ").value_or(0), ""};
}

// "Insufficient registers (N) to compile instruction at line L in function K. Try to compile
// with register target of M or higher."
std::optional<PtxasResourceError> insufficient_registers(const std::string& line) {
  if (!contains(line, "Insufficient registers (")) return std::nullopt;
  return PtxasResourceError{word_after(line, " in function "), Resource::registers,
                            number_after(line, "register target of ").value_or(0),
                            number_after(line, "Insufficient registers (").value_or(0), ""};
}

// "(C7600) Register allocation failed with register count of '255'. Compile the program with a
// higher register target" (ptxas fatal): names no kernel; the count is the target it failed at.
std::optional<PtxasResourceError> register_allocation_failed(const std::string& line) {
  if (!contains(line, "Register allocation failed")) return std::nullopt;
  return PtxasResourceError{"", Resource::registers, 0, number_after(line, "register count of '").value_or(0), ""};
}

// cudaErrorLaunchOutOfResources as cudaGetErrorString words it; names no kernel, no figure.
std::optional<PtxasResourceError> launch_out_of_resources(const std::string& line) {
  std::string lower = line;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  if (!contains(lower, "too many resources requested for launch")) return std::nullopt;
  return PtxasResourceError{};
}

}  // namespace

std::string demangle(const std::string& mangled) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> name(abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status),
                                              std::free);
  return status == 0 && name ? std::string(name.get()) : mangled;
}

const char* to_string(Resource r) {
  switch (r) {
    case Resource::shared_memory: return "shared_memory";
    case Resource::local_memory: return "local_memory";
    case Resource::constant_memory: return "constant_memory";
    case Resource::parameter_space: return "parameter_space";
    case Resource::registers: return "registers";
    case Resource::threads: return "threads";
    case Resource::unspecified: return "unspecified";
  }
  return "?";
}

std::vector<KernelResources> parse_ptxas_report(const std::string& compiler_output) {
  std::vector<KernelResources> kernels;
  bool frame_is_current = false;  // the last "Function properties" line named the current entry
  for (const std::string& line : split_lines(compiler_output)) {
    if (auto entry = entry_header(line)) {
      kernels.push_back(std::move(*entry));
      frame_is_current = false;
    } else if (auto name = properties_name(line)) {
      frame_is_current = !kernels.empty() && *name == kernels.back().kernel;
    } else if (kernels.empty()) {
      continue;
    } else if (frame_is_current && contains(line, " bytes stack frame")) {
      apply_frame(line, kernels.back());
      frame_is_current = false;
    } else if (contains(line, ": Used ")) {
      apply_usage(line, kernels.back());
    }
  }
  return kernels;
}

std::optional<PtxasResourceError> find_ptxas_resource_error(const std::string& output) {
  using Recogniser = std::optional<PtxasResourceError> (*)(const std::string&);
  static constexpr Recogniser kRecognisers[] = {too_much_data, parameter_overflow, insufficient_registers,
                                                register_allocation_failed, launch_out_of_resources};
  for (const std::string& line : split_lines(output)) {
    for (Recogniser recognise : kRecognisers) {
      if (auto error = recognise(line)) {
        error->message = line;
        return error;
      }
    }
  }
  return std::nullopt;
}

std::vector<std::string> find_ptxas_warnings(const std::string& output) {
  // "ptxas warning : ..." and "ptxas info    : (C7511) ...": a marker, padding, ':', a C75xx code
  static const std::regex kKept(R"(^ptxas (warning\s*:|info\s*:\s*\(C75[0-9][0-9]\)))");
  std::vector<std::string> warnings;
  for (const std::string& line : split_lines(output)) {
    const std::size_t at = line.find("ptxas ");
    if (at == std::string::npos) continue;
    std::string kept = line.substr(at);
    if (std::regex_search(kept, kKept) && std::find(warnings.begin(), warnings.end(), kept) == warnings.end())
      warnings.push_back(std::move(kept));
  }
  return warnings;
}

}  // namespace adaexplore
