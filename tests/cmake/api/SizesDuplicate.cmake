# SIZES giving one size twice (once with commas): an error naming the size and both spellings.
adaexplore_tune_kernel(gemm TEMPLATE kernel.cu.in BENCHMARK bench.cu PARAMS TILE 16 32 UNROLL 1 2
                       SIZES "M=512 N=256" "M=4096 N=4096" "M=512,N=256")
