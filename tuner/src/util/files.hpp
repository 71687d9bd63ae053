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
/// true when it wrote. Writes through a temporary file and rename, so readers never see half;
/// the temporary file is removed when the write or the rename fails. Throws EnvironmentError when
/// `path` is a folder or cannot be written (the folder, the disk).
bool write_file_if_changed(const std::filesystem::path& path, const std::string& content);

}  // namespace adaexplore
