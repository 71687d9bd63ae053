# Cross-compiling, neither this machine's GPU nor its CPU is the target's: TUNE is an error naming
# the kernel and what to do, for a host kernel too.
set(ENV{FAKE_TUNER_GPU} 1)
set(CMAKE_CROSSCOMPILING TRUE)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(ADAEXPLORE_MODE TUNE)
adaexplore_tune_kernel(saxpy TEMPLATE kernel.cu.in BENCHMARK bench.cu PARAMS TILE 16 32 UNROLL 1 2 BACKEND host)
