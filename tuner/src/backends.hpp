// Backend factories, one per implementation file.
#pragma once

#include <memory>

#include "backend.hpp"
#include "device.hpp"
#include "spec.hpp"

namespace adaexplore {

/// CUDA kernels: nvcc + ptxas report + benchmark process timed with CUDA events (cuda_backend.cpp).
std::unique_ptr<Backend> make_cuda_backend(const Spec& spec, const DeviceInfo& device);
/// C++ kernels: host compiler + benchmark process timed with a steady clock (host_backend.cpp).
std::unique_ptr<Backend> make_host_backend(const Spec& spec);

}  // namespace adaexplore
