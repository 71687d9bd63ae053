adaexplore_tune_kernel(gemm TEMPLATE kernel.cu.in BENCHMRK bench.cu PARAMS TILE 16 32 UNROLL 1 2)
