# Without a GPU, defaults that do not compile (the fake tuner's check: exit code 2) fail the configure.
set(ENV{FAKE_TUNER_CHECK_RC} 2)
set(ENV{FAKE_TUNER_CHECK_MESSAGE} "the defaults TILE=16,UNROLL=1 for sm_90: compile_error: bench.cu(3): error: identifier \"undefined_thing\" is undefined")
adaexplore_tune_kernel(gemm TEMPLATE kernel.cu.in BENCHMARK bench.cu PARAMS TILE 16 32 UNROLL 1 2 ARCH sm_90)
