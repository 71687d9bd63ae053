// Backend factories, one per implementation file.
#pragma once

#include <memory>
#include <vector>

#include "evaluate/backend.hpp"
#include "evaluate/device.hpp"
#include "model/spec.hpp"

namespace adaexplore {

/// CUDA kernels: nvcc + ptxas report + benchmark process timed with CUDA events (cuda_backend.cpp).
std::unique_ptr<Backend> make_cuda_backend(const Spec& spec, const DeviceInfo& device);
/// Measuring on several GPUs of one model at once, one worker per GPU (Backend::measure_slots),
/// each benchmark seeing only its GPU (CUDA_VISIBLE_DEVICES = its UUID); outcomes say where in
/// extra.device {index, uuid, pci_bus_id}. Throws std::runtime_error naming two GPUs of different
/// models (name or compute capability).
std::unique_ptr<Backend> make_cuda_backend(const Spec& spec, const std::vector<DeviceInfo>& devices);
/// C++ kernels: host compiler + benchmark process timed with a steady clock (host_backend.cpp).
std::unique_ptr<Backend> make_host_backend(const Spec& spec);

}  // namespace adaexplore
