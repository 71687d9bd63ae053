#include "util/file_lock.hpp"

#include <boost/interprocess/exceptions.hpp>
#include <cerrno>
#include <fstream>
#include <map>
#include <stdexcept>
#include <string>

#include "util/files.hpp"

namespace adaexplore {
namespace {

namespace fs = std::filesystem;

// One mutex per lock file for the whole process, never destroyed (a lock may outlive main's
// locals).
std::mutex& thread_mutex_for(const fs::path& lock_file) {
  static std::mutex registry_mutex;
  static auto* registry = new std::map<std::string, std::unique_ptr<std::mutex>>();
  std::lock_guard<std::mutex> guard(registry_mutex);
  auto& m = (*registry)[fs::absolute(lock_file).lexically_normal().string()];
  if (!m) m = std::make_unique<std::mutex>();
  return *m;
}

}  // namespace

fs::path lock_path_for(const fs::path& data_file) { return fs::path(data_file.string() + ".lock"); }

FileLock::FileLock(const fs::path& data_file) {
  const fs::path lock_file = lock_path_for(data_file);
  thread_lock_ = std::unique_lock<std::mutex>(thread_mutex_for(lock_file));
  // Created while no thread of this process holds its fcntl lock (the mutex above): closing this
  // descriptor would otherwise release that lock.
  if (lock_file.has_parent_path()) ensure_folder(lock_file.parent_path());  // names a file in the folder's place
  std::error_code ec;
  if (!fs::exists(lock_file, ec)) std::ofstream(lock_file, std::ios::app);
  try {
    file_lock_ = boost::interprocess::file_lock(lock_file.c_str());
    file_lock_.lock();
  } catch (const boost::interprocess::interprocess_exception& e) {
    // The cause in words: only a refused lock is the file system's lack of POSIX locks.
    const int error = e.get_native_error();
    std::string why = "the folder must be writable and its file system support POSIX locks";
    if (error == EACCES || error == EPERM || error == EROFS)
      why = "the folder is not writable by this user (or is on a read-only file system)";
    else if (error == ENOENT || error == ENOTDIR)
      why = "the lock file could not be created: is the folder writable?";
    else if (error == EISDIR)
      why = "a folder stands where the lock file must be: move it aside";
    else if (error == ENOSPC || error == EDQUOT)
      why = "the disk (or the user's quota) is full";
    else if (error == ENOLCK || error == EOPNOTSUPP || error == EINVAL)
      why = "the file system does not support POSIX locks (some network file systems): use a local folder";
    throw EnvironmentError(lock_file.string() + ": cannot take the lock that guards " + data_file.string() + " (" +
                           e.what() + "); " + why);
  }
}

FileLock::FileLock(const fs::path& data_file, Existing) {
  const fs::path lock_file = lock_path_for(data_file);
  thread_lock_ = std::unique_lock<std::mutex>(thread_mutex_for(lock_file));
  // boost's file_lock opens an existing file only (open_existing_file): it never creates one.
  file_lock_ = boost::interprocess::file_lock(lock_file.c_str());
  file_lock_.lock();
}

std::unique_ptr<FileLock> FileLock::lock_if_present(const fs::path& data_file) {
  std::error_code ec;
  if (!fs::is_regular_file(lock_path_for(data_file), ec)) return nullptr;
  try {
    return std::unique_ptr<FileLock>(new FileLock(data_file, Existing{}));
  } catch (const boost::interprocess::interprocess_exception&) {
    return nullptr;  // a lock file this user cannot open for writing (committed read-only data)
  }
}

FileLock::~FileLock() {
  try {
    file_lock_.unlock();
  } catch (...) {
    // Closing the lock file's descriptor (file_lock's destructor) releases the lock anyway.
  }
}

}  // namespace adaexplore
