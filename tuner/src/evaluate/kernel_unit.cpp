#include "evaluate/kernel_unit.hpp"

#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <functional>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <thread>

#include <nlohmann/json.hpp>

#include "util/hash.hpp"
#include "util/files.hpp"
#include "util/text.hpp"

namespace adaexplore {

namespace fs = std::filesystem;

namespace {

// What an #if's first branch says of the kernel unit: compiled only with it (#ifdef
// ADAEXPLORE_KERNEL_UNIT, #if defined(ADAEXPLORE_KERNEL_UNIT), #if ADAEXPLORE_KERNEL_UNIT, and
// those && more), only without it (#ifndef, #if !defined(...), #if !ADAEXPLORE_KERNEL_UNIT, and
// those && more), or neither (any other condition).
enum class UnitBranch { neither, with_unit, without_unit };

UnitBranch first_branch(const std::string& directive, const std::string& condition) {
  static const std::regex unit(R"(^\s*(defined\s*\(\s*ADAEXPLORE_KERNEL_UNIT\s*\)|defined\s+ADAEXPLORE_KERNEL_UNIT\b|ADAEXPLORE_KERNEL_UNIT\b)\s*(&&.*)?$)");
  static const std::regex not_unit(R"(^\s*!\s*(defined\s*\(\s*ADAEXPLORE_KERNEL_UNIT\s*\)|defined\s+ADAEXPLORE_KERNEL_UNIT\b|ADAEXPLORE_KERNEL_UNIT\b)\s*(&&.*)?$)");
  static const std::regex name(R"(^\s*ADAEXPLORE_KERNEL_UNIT\b\s*(//.*|/\*.*)?$)");
  std::string text = condition;
  if (const auto comment = text.find("//"); comment != std::string::npos) text.erase(comment);
  if (directive == "ifdef") return std::regex_search(text, name) ? UnitBranch::with_unit : UnitBranch::neither;
  if (directive == "ifndef") return std::regex_search(text, name) ? UnitBranch::without_unit : UnitBranch::neither;
  if (std::regex_search(text, not_unit)) return UnitBranch::without_unit;
  if (std::regex_search(text, unit)) return UnitBranch::with_unit;
  return UnitBranch::neither;
}

}  // namespace

bool includes_file(const std::string& source, const std::string& file) {
  static const std::regex include(R"(^\s*#\s*include\s*["<]([^">]+)[">])");
  static const std::regex opens(R"(^\s*#\s*(if|ifdef|ifndef)\b(.*))");
  static const std::regex closes(R"(^\s*#\s*endif\b)");
  static const std::regex turns(R"(^\s*#\s*(else|elif)\b)");
  // Each open #if: what its first branch says, and whether its current branch is a later one
  // (#else or #elif: compiled only where the first branch is not, so an #ifdef's #else only
  // without the kernel unit, an #ifndef's only with it).
  struct Open {
    UnitBranch kind;
    bool later;
    bool without_unit() const {
      return later ? kind == UnitBranch::with_unit : kind == UnitBranch::without_unit;
    }
  };
  std::vector<Open> open;
  std::istringstream in(source);
  std::string line;
  while (std::getline(in, line)) {
    std::smatch m;
    if (std::regex_search(line, m, opens)) {
      open.push_back({first_branch(m[1].str(), m[2].str()), false});
      continue;
    }
    if (std::regex_search(line, closes)) {
      if (!open.empty()) open.pop_back();
      continue;
    }
    if (std::regex_search(line, turns)) {
      if (!open.empty()) open.back().later = true;
      continue;
    }
    if (!std::regex_search(line, m, include)) continue;
    if (std::any_of(open.begin(), open.end(), [](const Open& o) { return o.without_unit(); })) continue;  // "program" only
    const std::string named = m[1].str();
    if (named == file || (named.size() > file.size() && named.compare(named.size() - file.size(), file.size(), file) == 0 &&
                          named[named.size() - file.size() - 1] == '/'))
      return true;
  }
  return false;
}

std::string kernel_unit_toolkit_problem(const std::string& version_output) {
  static const std::regex release(R"(release ([0-9]+)\.([0-9]+))");
  std::smatch m;
  if (!std::regex_search(version_output, m, release)) return "";
  const int major = std::stoi(m[1].str()), minor = std::stoi(m[2].str());
  if (major > 12 || (major == 12 && minor >= 4)) return "";
  return "nvcc release " + m[1].str() + "." + m[2].str() +
         " (the kernel unit needs CUDA 12.4 or newer: cudaLibraryEnumerateKernels, cudaFuncGetName, "
         "cudaFuncGetParamInfo)";
}

CompileUnit choose_compile_unit(const Spec& spec, const std::string& rendered_name, bool backend_has_kernel_unit,
                                const std::string& toolkit_problem) {
  const std::string& unit = spec.compiler.unit;
  if (!backend_has_kernel_unit) {
    if (unit == "kernel")
      throw std::runtime_error(spec.file.string() + ": compiler.unit \"kernel\": the " + spec.backend +
                               " backend has no kernel unit (cuda only); use \"program\" or \"auto\"");
    return {false, false, "the whole benchmark per configuration (the " + spec.backend + " backend has no kernel unit)"};
  }
  const bool includes = includes_file(read_file(spec.benchmark_path), rendered_name);
  if (unit == "program")
    return {false, !includes,
            includes ? "the whole benchmark per configuration (compiler.unit \"program\")"
                     : "the whole benchmark per configuration, with the configuration's cubin for Benchmark::kernel() (" +
                           spec.benchmark_path.filename().string() + " does not include " + rendered_name +
                           "; compiler.unit \"program\")"};
  if (!toolkit_problem.empty()) {
    if (unit == "kernel")
      throw std::runtime_error(spec.file.string() + ": compiler.unit \"kernel\": " + toolkit_problem +
                               "; use \"program\" (COMPILE_UNIT PROGRAM) or a newer toolkit");
    return {false, false, "the whole benchmark per configuration: " + toolkit_problem + " (compiler.unit \"auto\")"};
  }
  if (unit == "kernel")
    return {true, true, "the kernel unit: the template's device code alone per configuration (compiler.unit \"kernel\")"};
  if (includes)
    return {false, false,
            "the whole benchmark per configuration: " + spec.benchmark_path.filename().string() + " includes " +
                rendered_name +
                ", the rendered template (compiler.unit \"auto\"; a benchmark that launches through "
                "Benchmark::kernel() compiles once: docs/kernel-unit.md)"};
  return {true, true, "the kernel unit: the template's device code alone per configuration, the benchmark once (" +
                          spec.benchmark_path.filename().string() + " does not include " + rendered_name +
                          "; compiler.unit \"auto\")"};
}

std::string kernel_unit_source(const std::string& rendered_name) {
  return "// Generated by adaexplore-tuner: the configuration's device code alone (the kernel unit).\n"
         "#include \"" + rendered_name + "\"\n";
}

std::vector<fs::path> parse_dependency_file(const std::string& text) {
  std::string joined;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\\' && i + 1 < text.size() && (text[i + 1] == '\n' || text[i + 1] == '\r')) {
      ++i;
      if (text[i] == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
      joined += ' ';
      continue;
    }
    joined += text[i];
  }
  // The target ends at the first ':' followed by white space (a Windows drive letter would not be).
  std::size_t colon = 0;
  for (; colon < joined.size(); ++colon)
    if (joined[colon] == ':' && (colon + 1 == joined.size() || std::isspace(static_cast<unsigned char>(joined[colon + 1]))))
      break;
  std::vector<fs::path> deps;
  std::string current;
  for (std::size_t i = colon + 1; i < joined.size(); ++i) {
    const char c = joined[i];
    if (c == '\\' && i + 1 < joined.size() && joined[i + 1] == ' ') {
      current += ' ';
      ++i;
    } else if (std::isspace(static_cast<unsigned char>(c))) {
      if (!current.empty()) deps.emplace_back(current);
      current.clear();
    } else {
      current += c;
    }
  }
  if (!current.empty()) deps.emplace_back(current);
  return deps;
}

CompileCache::CompileCache(fs::path directory, std::vector<fs::path> ignored_prefixes)
    : directory_(std::move(directory)) {
  for (auto& p : ignored_prefixes) {
    std::error_code ec;
    const fs::path canonical = fs::weakly_canonical(p, ec);
    ignored_.push_back(ec ? p.lexically_normal() : canonical);
  }
}

fs::path CompileCache::entry(const std::string& key) const { return directory_ / content_hash(key); }

bool CompileCache::ignored(const fs::path& p) const {
  const std::string s = p.string();
  for (const auto& prefix : ignored_) {
    const std::string q = prefix.string();
    if (!q.empty() && s.compare(0, q.size(), q) == 0 && (s.size() == q.size() || s[q.size()] == '/')) return true;
  }
  return false;
}

std::vector<fs::path> CompileCache::listed(const fs::path& dependency_file, const fs::path& own_folder) const {
  std::vector<fs::path> paths;
  std::error_code ec;
  const fs::path own = fs::weakly_canonical(own_folder, ec);
  for (const fs::path& dep : parse_dependency_file(read_file(dependency_file))) {
    // A relative path is the compiler's, which ran in own_folder (a relative -I in the flags).
    const fs::path path = fs::weakly_canonical(dep.is_relative() ? own_folder / dep : dep, ec);
    if (ec || ignored(path) || path.parent_path() == own) continue;
    paths.push_back(path);
  }
  return paths;
}

std::vector<CompileCache::Header> CompileCache::headers(const fs::path& dependency_file, const fs::path& own_folder) const {
  std::vector<Header> headers;
  for (const fs::path& path : listed(dependency_file, own_folder)) headers.push_back({path, content_hash(read_file(path))});
  return headers;
}

std::optional<CompileCache::Hit> CompileCache::find(const std::string& key, const fs::path& artifact) const {
  const fs::path folder = entry(key);
  std::error_code ec;
  if (!fs::is_directory(folder, ec)) return std::nullopt;
  try {
    const nlohmann::json deps = nlohmann::json::parse(read_file(folder / "deps.json"));
    for (const auto& d : deps.at("headers")) {
      const fs::path path = d.at("path").get<std::string>();
      if (!fs::exists(path, ec) || content_hash(read_file(path)) != d.at("hash").get<std::string>()) return std::nullopt;
    }
    Hit hit{valid_utf8(read_file(folder / "compile.out")), valid_utf8(read_file(folder / "compile.err"))};  // stored before 2026-12-05: raw
    fs::copy_file(folder / "artifact", artifact, fs::copy_options::overwrite_existing, ec);
    if (ec) return std::nullopt;
    return hit;
  } catch (const std::exception&) {  // a damaged or half-deleted entry: a miss
    return std::nullopt;
  }
}

void CompileCache::store(const std::string& key, const fs::path& artifact, const fs::path& dependency_file,
                         const fs::path& own_folder, const std::string& out, const std::string& err) const {
  std::error_code ec;
  try {
    nlohmann::json headers = nlohmann::json::array();
    for (const Header& h : this->headers(dependency_file, own_folder))
      headers.push_back({{"path", h.path.string()}, {"hash", h.hash}});
    const fs::path folder = entry(key);
    const fs::path partial = folder.string() + "." + std::to_string(::getpid()) + "-" +
                             std::to_string(std::hash<std::thread::id>()(std::this_thread::get_id())) + ".partial";
    fs::create_directories(partial);
    fs::copy_file(artifact, partial / "artifact", fs::copy_options::overwrite_existing);
    write_file_if_changed(partial / "compile.out", out);
    write_file_if_changed(partial / "compile.err", err);
    write_file_if_changed(partial / "deps.json", valid_utf8_json({{"headers", headers}}).dump(1) + "\n");
    fs::remove_all(folder, ec);  // an entry whose headers changed is replaced
    fs::rename(partial, folder, ec);
    if (ec) fs::remove_all(partial, ec);  // another tuning stored it first: theirs stays
  } catch (const std::exception&) {
  }
}

}  // namespace adaexplore
