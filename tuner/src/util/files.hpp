// Whole files: read at once, written only when their content changes (atomically).
#pragma once

#include <filesystem>
#include <stdexcept>
#include <string>

namespace adaexplore {

/// The environment, not the input, stopped the tuner: a file or folder could not be created,
/// written, locked or renamed (permissions, a full disk, a file where a folder must be: a tuning
/// database path that is a file). what() names the path, the cause and what to check.
/// adaexplore-tuner exits with kExitEnvironment (5) for it, and for std::filesystem errors.
class EnvironmentError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Creates `dir` and its parents when missing. Throws EnvironmentError naming the part of the
/// path that is a file, or the folder and the system's reason (permissions, disk full).
void ensure_folder(const std::filesystem::path& dir);

/// Reads a whole file; throws std::runtime_error naming the file when it cannot be read.
std::string read_file(const std::filesystem::path& path);
/// Writes a file only when its content differs (keeps timestamps of unchanged outputs). Returns
/// true when it wrote. Writes through a temporary file and rename, so readers never see half.
/// Throws EnvironmentError "cannot write <path>: <why>" (a folder at `path`: "is a folder; give
/// a file name"; its folder cannot be made: ensure_folder's reason; otherwise the system's reason,
/// a full disk "No space left on device") and leaves no temporary file behind; `path` keeps its
/// earlier content.
bool write_file_if_changed(const std::filesystem::path& path, const std::string& content);
/// Writes all of `content` to `fd` (retrying short writes); throws EnvironmentError "cannot
/// write <path>: <the system's reason>" naming `path`, the file `fd` is open on.
void write_fully(int fd, const std::string& content, const std::filesystem::path& path);

}  // namespace adaexplore
