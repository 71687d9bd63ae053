# ADAEXPLORE_RETUNE=ALL: every kernel this configure tunes gets --retune, cuda and host alike; a
# kernel it does not tune (here DEFAULTS mode) is named as not retuned and stays in ADAEXPLORE_RETUNE.
set(ENV{FAKE_TUNER_GPU} 1)
set(args TEMPLATE kernel.cu.in BENCHMARK bench.cu PARAMS TILE 16 32 UNROLL 1 2)
adaexplore_tune_kernel(first ${args})
adaexplore_tune_kernel(second ${args})
adaexplore_tune_kernel(host_kernel ${args} BACKEND host)
set(ADAEXPLORE_MODE DEFAULTS)
adaexplore_tune_kernel(fourth ${args})

expect_fake_tuner_calls("tune .* --retune harness" 3)
expect_fake_tuner_calls(tune 3)
expect_fake_tuner_calls(defaults 1)
