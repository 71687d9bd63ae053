# adaexplore-pin (run in -check.cmake) copies each tuned kernel's header to its pin location:
# PINNED_HEADER (a), else ${ADAEXPLORE_PINNED_DIR}/<name>.hpp (b), else pinned/<name>.hpp beside
# the calling CMakeLists.txt (c, which is not tuned here, so it is only listed, never written).
set(ENV{FAKE_TUNER_GPU} 1)
set(args TEMPLATE kernel.cu.in BENCHMARK bench.cu PARAMS TILE 16 32 UNROLL 1 2)
adaexplore_tune_kernel(a ${args} PINNED_HEADER "${CMAKE_BINARY_DIR}/pins-explicit/a.hpp")
set(ADAEXPLORE_PINNED_DIR "${CMAKE_BINARY_DIR}/pins")
adaexplore_tune_kernel(b ${args})
unset(ADAEXPLORE_PINNED_DIR)
set(ADAEXPLORE_MODE DEFAULTS)
adaexplore_tune_kernel(c ${args})
if(NOT TARGET adaexplore-pin)
  message(FATAL_ERROR "no adaexplore-pin target")
endif()
