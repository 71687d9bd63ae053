# SIZES with a value 0: sizes are positive integers.
adaexplore_tune_kernel(gemm TEMPLATE kernel.cu.in BENCHMARK bench.cu PARAMS TILE 16 32 UNROLL 1 2
                       SIZES "M=0 N=256")
