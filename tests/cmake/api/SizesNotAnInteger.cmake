# SIZES with a value that is not an integer: an error naming the size, the value and its name.
adaexplore_tune_kernel(gemm TEMPLATE kernel.cu.in BENCHMARK bench.cu PARAMS TILE 16 32 UNROLL 1 2
                       SIZES "M=512 N=256" "M=4096 N=1.5")
