// Content hashes: the keys of results files and of the compile cache.
#pragma once

#include <string>

namespace adaexplore {

/// SHA-1 based (RFC 4122 name-based UUID, Boost.UUID) digest of `data`, as 32 hex digits.
std::string content_hash(const std::string& data);

}  // namespace adaexplore
