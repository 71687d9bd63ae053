# PINNED mode, a pinned header whose values violate a constraint: an error naming the header and the
# constraint (the tuner's check, before anything is compiled).
set(ADAEXPLORE_MODE PINNED)
set(ADAEXPLORE_PINNED_DIR "${CMAKE_CURRENT_SOURCE_DIR}/pinned")
adaexplore_tune_kernel(scale_over TEMPLATE kernels/scale.cuh.in BENCHMARK ${scale}/scale_bench.cu ${scale_tuning} ARCH sm_90)
