set(ENV{FAKE_TUNER_GPU} 1)
set(ENV{FAKE_TUNER_TUNE_RC} 2)
adaexplore_tune_kernel(gemm TEMPLATE kernel.cu.in BENCHMARK bench.cu PARAMS TILE 16 32 UNROLL 1 2)
