# SIZES naming a parameter: the header would declare the name twice.
adaexplore_tune_kernel(gemm TEMPLATE kernel.cu.in BENCHMARK bench.cu PARAMS TILE 16 32 UNROLL 1 2
                       SIZES "TILE=512 N=256")
