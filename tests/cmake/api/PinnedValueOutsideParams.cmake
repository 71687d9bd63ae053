# PINNED mode, a pinned header with a value outside PARAMS: an error naming the header, the
# parameter and the values.
set(ADAEXPLORE_MODE PINNED)
set(ADAEXPLORE_PINNED_DIR "${CMAKE_CURRENT_SOURCE_DIR}/pinned-bad")
adaexplore_tune_kernel(out_of_space TEMPLATE kernel.cu.in BENCHMARK bench.cu PARAMS TILE 16 32 UNROLL 1 2)
