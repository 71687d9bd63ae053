set(ADAEXPLORE_TUNER_EXECUTABLE "${CMAKE_CURRENT_SOURCE_DIR}/no-such-tuner")
adaexplore_tune_kernel(gemm TEMPLATE kernel.cu.in BENCHMARK bench.cu PARAMS TILE 16 32 UNROLL 1 2)
