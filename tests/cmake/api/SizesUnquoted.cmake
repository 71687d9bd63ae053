# SIZES with a size not quoted: each NAME=VALUE is read as a size of its own, so the second names
# another name than the first; the error says to quote each size.
adaexplore_tune_kernel(gemm TEMPLATE kernel.cu.in BENCHMARK bench.cu PARAMS TILE 16 32 UNROLL 1 2
                       SIZES M=512 N=512)
