// The no-GPU reason (device.hpp): on a machine without the NVIDIA driver the CUDA runtime says
// "cudaErrorInsufficientDriver (CUDA driver version is insufficient for CUDA runtime version)",
// which reads as an old driver; the reason says first that there is none (issue 23), and keeps
// the runtime's words.
#include "evaluate/device.hpp"

#include <gtest/gtest.h>

namespace adaexplore {
namespace {

const char* const kInsufficient =
    "cudaGetDeviceCount: cudaErrorInsufficientDriver (CUDA driver version is insufficient for CUDA runtime version)";

TEST(NoDeviceReason, NoDriverIsSaidFirstWithTheRuntimesError) {
  EXPECT_EQ(no_device_reason(kInsufficient,
                             std::string("libcuda.so.1: cannot open shared object file: No such file or directory")),
            std::string("no NVIDIA driver or GPU (libcuda.so.1 cannot be loaded: libcuda.so.1: cannot open shared "
                        "object file: No such file or directory). CUDA runtime: ") +
                kInsufficient);
}

TEST(NoDeviceReason, WithADriverTheRuntimesErrorAlone) {
  // A driver that loads but is older than the runtime: the runtime's words are right.
  EXPECT_EQ(no_device_reason(kInsufficient, std::nullopt), kInsufficient);
}

// This machine as it is: without libcuda.so.1, query_device says so (and keeps the runtime's
// error); with a driver and no GPU, the runtime's error alone.
TEST(QueryDevice, AMachineWithoutTheDriverSaysSo) {
#ifndef ADAEXPLORE_HAVE_CUDART
  GTEST_SKIP() << "the tuner is built without the CUDA runtime";
#endif
  const std::optional<std::string> load_error = driver_load_error();
  const DeviceInfo device = query_device(0);
  if (device.present) GTEST_SKIP() << "a GPU is present: " << device.name;
  if (!load_error) {
    EXPECT_EQ(device.reason.find("no NVIDIA driver"), std::string::npos) << device.reason;
    GTEST_SKIP() << "the NVIDIA driver loads here; no GPU: " << device.reason;
  }
  EXPECT_EQ(device.reason.rfind("no NVIDIA driver or GPU (libcuda.so.1 cannot be loaded: ", 0), 0u) << device.reason;
  EXPECT_NE(device.reason.find(". CUDA runtime: cudaGetDeviceCount: cudaError"), std::string::npos) << device.reason;
}

}  // namespace
}  // namespace adaexplore
