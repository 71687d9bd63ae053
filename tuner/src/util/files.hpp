// Whole files: read at once, written only when their content changes (atomically).
#pragma once

#include <filesystem>
#include <string>

namespace adaexplore {

/// Reads a whole file; throws std::runtime_error naming the file when it cannot be read.
std::string read_file(const std::filesystem::path& path);
/// Writes a file only when its content differs (keeps timestamps of unchanged outputs). Returns
/// true when it wrote. Writes through a temporary file and rename, so readers never see half.
/// Throws std::runtime_error "cannot write <path>: <the system's reason>" (a full disk: "No space
/// left on device"; a folder that cannot be created; a directory at `path`) and leaves no
/// temporary file behind; `path` keeps its earlier content.
bool write_file_if_changed(const std::filesystem::path& path, const std::string& content);
/// Writes all of `content` to `fd` (retrying short writes); throws std::runtime_error "cannot
/// write <path>: <the system's reason>" naming `path`, the file `fd` is open on.
void write_fully(int fd, const std::string& content, const std::filesystem::path& path);

}  // namespace adaexplore
