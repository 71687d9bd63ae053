# A misspelled keyword after SIZES is read as a size; the error names the keyword.
adaexplore_tune_kernel(gemm TEMPLATE kernel.cu.in BENCHMARK bench.cu PARAMS TILE 16 32 UNROLL 1 2
                       SIZES "M=512" "M=4096" SIZE_BUGDET 5)
