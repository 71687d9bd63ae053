#include "util/files.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
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

void write_fully(int fd, const std::string& content, const std::filesystem::path& path) {
  std::size_t done = 0;
  while (done < content.size()) {
    const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0)
      throw EnvironmentError("cannot write " + path.string() + ": " + std::strerror(n < 0 ? errno : ENOSPC));
    done += static_cast<std::size_t>(n);
  }
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
  const std::string cannot = "cannot write " + path.string() + ": ";
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw EnvironmentError(cannot + "is a folder; give a file name, or move the folder aside");
  if (std::filesystem::exists(path, ec)) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    if (in && ss.str() == content) return false;
  }
  if (path.has_parent_path()) try {
      ensure_folder(path.parent_path());
    } catch (const EnvironmentError& e) {
      throw EnvironmentError(cannot + e.what());
    }
  // A name of its own per process and call: two writers of one file (two tunings sharing a work
  // folder, parallel compile workers) must not rename each other's half-written temporary.
  static std::atomic<unsigned long> counter{0};
  const std::filesystem::path tmp =
      path.string() + ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw EnvironmentError(cannot + std::strerror(errno));
  try {
    write_fully(fd, content, path);
  } catch (...) {
    ::close(fd);
    std::filesystem::remove(tmp, ec);
    throw;
  }
  if (::close(fd) != 0) {  // a network file system reports a full disk here
    const int error = errno;
    std::filesystem::remove(tmp, ec);
    throw EnvironmentError(cannot + std::strerror(error));
  }
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::error_code ignored;
    std::filesystem::remove(tmp, ignored);
    throw EnvironmentError(cannot + ec.message());
  }
  return true;
}

}  // namespace adaexplore
