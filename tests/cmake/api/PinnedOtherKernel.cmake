# PINNED mode, a pinned header of another kernel (another namespace): an error naming the header.
set(ADAEXPLORE_MODE PINNED)
adaexplore_tune_kernel(gemm TEMPLATE kernel.cu.in BENCHMARK bench.cu PARAMS TILE 16 32 UNROLL 1 2
                       PINNED_HEADER pinned-bad/someone_else.hpp)
