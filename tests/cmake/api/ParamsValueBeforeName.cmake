adaexplore_tune_kernel(gemm TEMPLATE kernel.cu.in BENCHMARK bench.cu PARAMS 16 32 TILE 1 UNROLL 1)
