// Backend factories, one per implementation file, and make_backend(), which makes the backend of
// a spec's registry row (model/backend_kind.hpp).
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

/// The backend of spec.backend (its row of model/backend_kind.hpp). `devices`: the GPUs it
/// measures on when the row needs_gpu (at least one; a DeviceInfo that is not present for a
/// backend that only compiles, as `check` does), ignored otherwise. Throws std::invalid_argument
/// for an unknown backend or a GPU backend without devices.
std::unique_ptr<Backend> make_backend(const Spec& spec, const std::vector<DeviceInfo>& devices);

}  // namespace adaexplore
