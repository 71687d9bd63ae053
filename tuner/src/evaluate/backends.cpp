// make_backend (backends.hpp): a registry row's factory.
#include "evaluate/backends.hpp"

#include "model/backend_kind.hpp"

namespace adaexplore {

std::unique_ptr<Backend> make_backend(const Spec& spec, const std::vector<DeviceInfo>& devices) {
  switch (backend_kind(spec.backend).id) {
    case BackendId::cuda: return make_cuda_backend(spec, devices);
    case BackendId::host: return make_host_backend(spec);
  }
  throw std::invalid_argument("backend " + spec.backend + " has no factory in evaluate/backends.cpp");
}

}  // namespace adaexplore
