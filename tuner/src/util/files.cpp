#include "util/files.hpp"

#include <unistd.h>

#include <atomic>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace adaexplore {

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path.string());
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void ensure_folder(const std::filesystem::path& dir) {
  namespace fs = std::filesystem;
  if (dir.empty()) return;
  std::error_code ec;
  if (fs::is_directory(dir, ec)) return;
  fs::create_directories(dir, ec);
  if (!ec && fs::is_directory(dir)) return;
  for (fs::path p = dir; !p.empty(); p = p.parent_path()) {
    std::error_code e;
    if (fs::exists(p, e) && !fs::is_directory(p, e))
      throw EnvironmentError(p.string() + ": is a file, not a folder, so the folder " + dir.string() +
                             " cannot be made; move the file aside or give another path");
    if (p == p.parent_path()) break;
  }
  throw EnvironmentError(dir.string() + ": the folder cannot be created (" +
                         (ec ? ec.message() : std::string("unknown reason")) +
                         "); check the permissions of its parent folder and the disk's free space");
}

bool write_file_if_changed(const std::filesystem::path& path, const std::string& content) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw EnvironmentError(path.string() + ": is a folder; give a file name (e.g. " + (path / "report.html").string() +
                           ")");
  if (std::filesystem::exists(path, ec)) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    if (in && ss.str() == content) return false;
  }
  if (path.has_parent_path()) ensure_folder(path.parent_path());
  // A name of its own per process and call: two writers of one file (two tunings sharing a work
  // folder, parallel compile workers) must not rename each other's half-written temporary.
  static std::atomic<unsigned long> counter{0};
  const std::filesystem::path tmp =
      path.string() + ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
  auto fail = [&](const std::string& what) {
    std::filesystem::remove(tmp, ec);  // nothing half-written stays behind
    throw EnvironmentError(path.string() + ": " + what);
  };
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) fail("cannot be written (cannot create " + tmp.filename().string() + " beside it: is the folder writable?)");
    out << content;
    if (!out.flush()) fail("cannot be written (disk full?)");
  }
  std::filesystem::rename(tmp, path, ec);
  if (ec) fail("cannot be replaced (" + ec.message() + ")");
  return true;
}

}  // namespace adaexplore
