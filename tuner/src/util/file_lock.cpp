#include "util/file_lock.hpp"

#include <boost/interprocess/exceptions.hpp>
#include <fstream>
#include <map>
#include <stdexcept>
#include <string>

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
  std::error_code ec;
  if (lock_file.has_parent_path()) fs::create_directories(lock_file.parent_path(), ec);
  if (!fs::exists(lock_file)) std::ofstream(lock_file, std::ios::app);
  try {
    file_lock_ = boost::interprocess::file_lock(lock_file.c_str());
    file_lock_.lock();
  } catch (const boost::interprocess::interprocess_exception& e) {
    throw std::runtime_error(
        lock_file.string() + ": cannot take the lock that guards " + data_file.string() + " (" +
        e.what() + "); the folder must be writable and its file system support POSIX locks");
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
