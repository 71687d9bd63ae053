// A tuning's work folder (the configurations' folders evals/<hash>/, the kernel unit's benchmark/,
// the header scan's dependencies/, the runners' logs), used by one process at a time.
//
// Two tunings of one spec started at once (two `tune` commands, a script run twice, `mpirun -np
// 2 tune` without --mpi) would otherwise compile into the same evals/<hash>/ and load each
// other's half-written benchmark.so, recording a failure the other process caused. Each process
// that uses a work folder holds an fcntl lock on `<folder>/work.lock` (released by the kernel when
// the process ends, however it ends); a process that finds `<work_dir>` locked by another uses
// `<work_dir>/concurrent-1`, `-2`, ..., the first it can lock, and keeps it until it releases the
// lease. Threads of one process are told apart by a process-wide list of the folders leased.
// The results file and the caches are not in it: appends to a results file take its lock
// (file_lock.hpp) and the compile caches store by rename, so those stay shared.
#pragma once

#include <filesystem>
#include <string>

namespace adaexplore {

class WorkFolder {
 public:
  /// Leases `work_dir` itself when no other process or thread uses it, else the first free
  /// `<work_dir>/concurrent-<n>`; creates the folder. `note` is set, when the folder is not
  /// `work_dir`, to one sentence saying why (the other user's pid where the lock names it). A
  /// file system without fcntl locks (some network file systems): `work_dir`, unlocked, with a
  /// note saying so. Throws std::runtime_error naming the folder when it cannot be created.
  explicit WorkFolder(const std::filesystem::path& work_dir);
  /// Releases the lease (the lock and the folder's place in the process-wide list).
  ~WorkFolder();
  WorkFolder(const WorkFolder&) = delete;
  WorkFolder& operator=(const WorkFolder&) = delete;

  /// The folder leased: `work_dir` or `<work_dir>/concurrent-<n>`.
  const std::filesystem::path& path() const { return path_; }
  /// Why the folder is not `work_dir` (or is unlocked); empty otherwise.
  const std::string& note() const { return note_; }

 private:
  std::filesystem::path path_;
  std::string note_;
  int fd_ = -1;  // the lock file's descriptor, open while leased; -1 when unlocked
};

}  // namespace adaexplore
