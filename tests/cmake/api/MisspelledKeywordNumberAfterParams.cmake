# A misspelled keyword after PARAMS with a number (BUDGTE 50) reads as a parameter; the template
# has no ${BUDGTE}: reported as the keyword misspelled, not as an unused parameter.
adaexplore_tune_kernel(gemm TEMPLATE kernel.cu.in BENCHMARK bench.cu PARAMS TILE 16 32 UNROLL 1 2 BUDGTE 50)
