# SIZE_BUDGET 0: a positive integer is needed.
adaexplore_tune_kernel(gemm TEMPLATE kernel.cu.in BENCHMARK bench.cu PARAMS TILE 16 32 UNROLL 1 2
                       SIZES "M=512" "M=4096" SIZE_BUDGET 0)
