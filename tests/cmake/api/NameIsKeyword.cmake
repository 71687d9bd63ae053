adaexplore_tune_kernel(TEMPLATE kernel.cu.in BENCHMARK bench.cu PARAMS TILE 16)
