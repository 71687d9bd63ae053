# Without a GPU the kernel is checked (`adaexplore-tuner check`), and a check that fails (here the
# fake tuner's: a template placeholder that is no parameter, exit code 1) fails the configure with
# the tuner's message, as a tuning on a GPU would, instead of the NOT TUNED warning alone.
set(ENV{FAKE_TUNER_CHECK_RC} 1)
set(ENV{FAKE_TUNER_CHECK_MESSAGE} "error: /src/kernel.cu.in:2: unknown placeholder \${TILES} (parameters: TILE, UNROLL)")
adaexplore_tune_kernel(gemm TEMPLATE kernel.cu.in BENCHMARK bench.cu PARAMS TILE 16 32 UNROLL 1 2 ARCH sm_90)
