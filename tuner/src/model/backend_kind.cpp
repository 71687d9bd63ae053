#include "model/backend_kind.hpp"

#include <stdexcept>

namespace adaexplore {

const std::vector<BackendKind>& backend_kinds() {
  // id, name, default compiler, needs a GPU, launches kernels, has a kernel unit
  static const std::vector<BackendKind> kinds = {
      {BackendId::cuda, "cuda", "nvcc", true, true, true},
      {BackendId::host, "host", "c++", false, false, false},
  };
  return kinds;
}

const BackendKind* find_backend_kind(const std::string& name) {
  for (const auto& k : backend_kinds())
    if (name == k.name) return &k;
  return nullptr;
}

std::string backend_names() {
  std::string names;
  for (const auto& k : backend_kinds()) names += (names.empty() ? "" : ", ") + std::string(k.name);
  return names;
}

const BackendKind& backend_kind(const std::string& name) {
  if (const BackendKind* k = find_backend_kind(name)) return *k;
  throw std::invalid_argument("backend '" + name + "' is not one of " + backend_names());
}

}  // namespace adaexplore
