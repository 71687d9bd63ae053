// vector_add_lib: the example library built with the tuned kernel configuration.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

/// Enqueues c[i] = a[i] + b[i] for i < n on `stream` (device pointers; any alignment).
/// Like a kernel launch, errors are reported by cudaGetLastError() / the next synchronization.
void vector_add(const float* a, const float* b, float* c, std::size_t n, cudaStream_t stream);
