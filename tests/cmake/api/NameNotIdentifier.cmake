adaexplore_tune_kernel(2gemm TEMPLATE kernel.cu.in BENCHMARK bench.cu PARAMS TILE 16 UNROLL 1)
