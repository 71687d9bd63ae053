# SIZE_BUDGET without SIZES: it is the budget of the sizes after the first, so it needs SIZES.
adaexplore_tune_kernel(gemm TEMPLATE kernel.cu.in BENCHMARK bench.cu PARAMS TILE 16 32 UNROLL 1 2
                       SIZE_BUDGET 20)
