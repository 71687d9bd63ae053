adaexplore_tune_kernel(gemm TEMPLATE kernel.cu.in PARAMS TILE 16 UNROLL 1)
