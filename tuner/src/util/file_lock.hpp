// An exclusive lock guarding one results file against other processes and other threads.
//
// Processes: Boost.Interprocess `file_lock` (POSIX fcntl record locks) on a lock file beside the
// data, `<data>.lock`, never the data file itself: the data file is renamed (`--retune`) and
// reopened per append, and a lock belongs to the file it was taken on. A lock of a killed process
// is released by the kernel, so a `kill -9` never leaves the database locked.
// Threads: fcntl locks belong to the process (two threads of one process would both "hold" it,
// and closing any descriptor of the lock file drops the process's lock), so each lock file also
// has a process-wide mutex, held for as long as the file lock is.
#pragma once

#include <boost/interprocess/sync/file_lock.hpp>
#include <filesystem>
#include <memory>
#include <mutex>

namespace adaexplore {

/// "<data_file>.lock": the lock file that guards `data_file`.
std::filesystem::path lock_path_for(const std::filesystem::path& data_file);

class FileLock {
 public:
  /// Blocks until `data_file`'s lock is held by this thread; creates the lock file (and its
  /// folder) when missing. Throws EnvironmentError (files.hpp) naming the lock file and the cause
  /// when it cannot be created or locked (a file in the folder's place, a read-only folder, a full
  /// disk, a file system without locks).
  explicit FileLock(const std::filesystem::path& data_file);
  /// For pure readers: the lock when `data_file`'s lock file already exists (a writer made it)
  /// and can be locked; nullptr otherwise. Creates nothing, neither the lock file nor a folder, so
  /// reading committed data or a mistyped path leaves no trace. Without a lock file no writer
  /// has written the data file through FileLock (a writer starting meanwhile at most leaves a
  /// half-written last line, which readers drop with a warning).
  static std::unique_ptr<FileLock> lock_if_present(const std::filesystem::path& data_file);
  ~FileLock();
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;

 private:
  struct Existing {};  // lock_if_present: lock an existing lock file, create nothing
  FileLock(const std::filesystem::path& data_file, Existing);
  std::unique_lock<std::mutex> thread_lock_;
  boost::interprocess::file_lock file_lock_;
};

}  // namespace adaexplore
