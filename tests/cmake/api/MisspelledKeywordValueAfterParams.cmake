# A misspelled keyword after PARAMS whose value is no number: reported as the keyword misspelled.
adaexplore_tune_kernel(gemm TEMPLATE kernel.cu.in BENCHMARK bench.cu PARAMS TILE 16 32 UNROLL 1 2 DEFAULT TILE=32)
