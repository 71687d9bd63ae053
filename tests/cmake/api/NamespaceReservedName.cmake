# A NAMESPACE part that is a keyword (class) or reserved to the compiler (__detail).
adaexplore_tune_kernel(gemm TEMPLATE kernel.cu.in BENCHMARK bench.cu PARAMS TILE 16 32 NAMESPACE blas::__detail)
