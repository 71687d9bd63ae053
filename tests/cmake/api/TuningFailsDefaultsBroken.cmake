# A tuning that fails where the defaults fail the check too (here: do not compile): the error does
# not suggest DEFAULTS mode, which would fail the same way, but says why it would.
set(ENV{FAKE_TUNER_GPU} 1)
set(ENV{FAKE_TUNER_TUNE_RC} 2)
set(ENV{FAKE_TUNER_CHECK_RC} 2)
set(ENV{FAKE_TUNER_CHECK_MESSAGE} "the defaults TILE=16,UNROLL=1 for sm_90: compile_error: bench.cu(3): error: expected a \";\"")
adaexplore_tune_kernel(gemm TEMPLATE kernel.cu.in BENCHMARK bench.cu PARAMS TILE 16 32 UNROLL 1 2 ARCH sm_90)
