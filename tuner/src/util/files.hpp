// Whole files: read at once, written only when their content changes (atomically).
#pragma once

#include <filesystem>
#include <string>

namespace adaexplore {

/// Reads a whole file; throws std::runtime_error naming the file when it cannot be read.
std::string read_file(const std::filesystem::path& path);
/// Writes a file only when its content differs (keeps timestamps of unchanged outputs). Returns
/// true when it wrote. Writes through a temporary file and rename, so readers never see half.
bool write_file_if_changed(const std::filesystem::path& path, const std::string& content);

}  // namespace adaexplore
