adaexplore_tune_kernel(gemm BENCHMARK bench.cu PARAMS TILE 16 UNROLL 1)
