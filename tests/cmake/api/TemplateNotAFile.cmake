adaexplore_tune_kernel(gemm TEMPLATE nosuch.cu.in BENCHMARK bench.cu PARAMS TILE 16 UNROLL 1)
