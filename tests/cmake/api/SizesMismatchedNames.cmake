# SIZES whose sizes name other names (or the same in another order): an error naming both sizes.
adaexplore_tune_kernel(gemm TEMPLATE kernel.cu.in BENCHMARK bench.cu PARAMS TILE 16 32 UNROLL 1 2
                       SIZES "M=512 N=512" "N=1024 M=1024")
