#include "util/text.hpp"

namespace adaexplore {

std::string truncate_middle(const std::string& text, std::size_t keep) {
  if (text.size() <= keep) return text;
  const std::size_t half = keep / 2;
  return text.substr(0, half) + "\n[... " + std::to_string(text.size() - 2 * half) + " characters cut ...]\n" +
         text.substr(text.size() - half);
}

}  // namespace adaexplore
