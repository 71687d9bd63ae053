# Without a GPU nothing is tuned, so nothing is retuned: ADAEXPLORE_RETUNE stays set (see
# -check.cmake) and the configure says so; a name no call declares gets a warning.
set(ADAEXPLORE_RETUNE "gemm;gemmm" CACHE STRING "" FORCE)
adaexplore_tune_kernel(gemm TEMPLATE kernel.cu.in BENCHMARK bench.cu PARAMS TILE 16 32 UNROLL 1 2)
expect_fake_tuner_calls(tune 0)
