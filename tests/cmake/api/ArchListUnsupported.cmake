# CMAKE_CUDA_ARCHITECTURES (set after project(), which CMake's own compiler check does not see)
# with an architecture the CUDA compiler cannot target, not the first: every one is checked.
set(CMAKE_CUDA_ARCHITECTURES "90;35-real")
adaexplore_tune_kernel(gemm TEMPLATE kernel.cu.in BENCHMARK bench.cu PARAMS TILE 16 32 UNROLL 1 2)
