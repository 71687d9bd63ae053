# A pinned header records the GPU it was tuned on; PINNED on a machine with another GPU warns with
# both names (once per kernel), and stays quiet where they agree. The GPU is asked for once.
set(ENV{FAKE_TUNER_GPU} 1)
set(ENV{FAKE_TUNER_GPU_NAME} "Other GPU")
set(ENV{FAKE_TUNER_GPU_CC} "8.0")
set(ADAEXPLORE_MODE PINNED)
set(args TEMPLATE kernel.cu.in BENCHMARK bench.cu PARAMS TILE 16 32 UNROLL 1 2)
adaexplore_tune_kernel(h200_kernel ${args})
adaexplore_tune_kernel(other_kernel ${args})

expect_equal("${ADAEXPLORE_h200_kernel_ORIGIN}" "PINNED" "h200_kernel")
expect_file_matches("${ADAEXPLORE_h200_kernel_HEADER}" "Device: +NVIDIA H200")
expect_fake_tuner_calls(device 1)
expect_fake_tuner_calls(tune 0)
