adaexplore_tune_kernel(gemm kernel.cu.in TEMPLATE kernel.cu.in BENCHMARK bench.cu PARAMS TILE 16 UNROLL 1)
