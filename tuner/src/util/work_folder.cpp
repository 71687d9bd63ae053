#include "util/work_folder.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <mutex>
#include <set>
#include <stdexcept>

namespace adaexplore {
namespace {

namespace fs = std::filesystem;

// The folders leased by this process (never destroyed: a lease may outlive main's locals). Also
// what keeps a thread from opening (and, closing it, unlocking) a lock file another thread of
// this process holds: fcntl locks belong to the process, and any close of the file drops them.
std::mutex& leased_mutex() {
  static std::mutex m;
  return m;
}
std::set<std::string>& leased() {
  static auto* folders = new std::set<std::string>();
  return *folders;
}

enum class Attempt { locked, busy, unsupported };

// Locks <folder>/work.lock without waiting: `fd` open on it when locked; `holder` the pid the
// kernel names for a busy one (0 when it names none); `error` why locks are unsupported.
Attempt try_lock(const fs::path& folder, int& fd, long& holder, std::string& error) {
  std::error_code ec;
  fs::create_directories(folder, ec);
  if (ec) throw std::runtime_error("cannot create the work folder " + folder.string() + ": " + ec.message());
  const fs::path file = folder / "work.lock";
  fd = ::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0)
    throw std::runtime_error("cannot open " + file.string() + " (the work folder's lock): " + std::strerror(errno));
  struct flock lock {};
  lock.l_type = F_WRLCK;
  lock.l_whence = SEEK_SET;
  if (::fcntl(fd, F_SETLK, &lock) == 0) return Attempt::locked;
  const int e = errno;
  if (e == EACCES || e == EAGAIN) {
    struct flock probe {};
    probe.l_type = F_WRLCK;
    probe.l_whence = SEEK_SET;
    if (::fcntl(fd, F_GETLK, &probe) == 0 && probe.l_type != F_UNLCK) holder = static_cast<long>(probe.l_pid);
    ::close(fd);
    fd = -1;
    return Attempt::busy;
  }
  error = std::strerror(e);
  ::close(fd);
  fd = -1;
  return Attempt::unsupported;
}

}  // namespace

WorkFolder::WorkFolder(const fs::path& work_dir) {
  std::lock_guard<std::mutex> guard(leased_mutex());
  std::string who;  // the first user of work_dir, for the note
  for (int n = 0;; ++n) {
    const fs::path folder = n == 0 ? work_dir : work_dir / ("concurrent-" + std::to_string(n));
    const std::string name = fs::absolute(folder).lexically_normal().string();
    if (leased().count(name)) {
      if (n == 0) who = "another tuning of this process";
      continue;
    }
    long holder = 0;
    std::string error;
    const Attempt a = try_lock(folder, fd_, holder, error);
    if (a == Attempt::busy) {
      if (n == 0) who = holder > 0 ? "another tuning (process " + std::to_string(holder) + ")" : "another tuning";
      continue;
    }
    if (a == Attempt::unsupported) {  // no locks here: the folder asked for, as before leases
      path_ = work_dir;
      note_ = "the work folder " + work_dir.string() + " cannot be locked (" + error +
              "): two tunings of this spec at once would share it; run them one after the other";
      return;
    }
    leased().insert(name);
    path_ = folder;
    if (n > 0)
      note_ = "the work folder " + work_dir.string() + " is in use by " + who + "; this tuning compiles and runs in " +
              folder.string();
    return;
  }
}

WorkFolder::~WorkFolder() {
  if (fd_ < 0) return;
  std::lock_guard<std::mutex> guard(leased_mutex());
  ::close(fd_);  // drops the lock
  leased().erase(fs::absolute(path_).lexically_normal().string());
}

}  // namespace adaexplore
