adaexplore_tune_kernel(gemm KERNEL_SOURCE kernel.cu.in BENCHMARK bench.cu PARAMS TILE 16 32 DEFINE_PARAMS PRIVATE)
