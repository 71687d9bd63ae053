# OFF is an alias of DEFAULTS: the defaults header, no GPU asked for, nothing tuned, even with a GPU.
set(ENV{FAKE_TUNER_GPU} 1)
set(ADAEXPLORE_MODE OFF)
adaexplore_tune_kernel(gemm TEMPLATE kernel.cu.in BENCHMARK bench.cu PARAMS TILE 16 32 UNROLL 1 2)
adaexplore_tune_kernel(host_kernel TEMPLATE kernel.cu.in BENCHMARK bench.cu PARAMS TILE 16 32 UNROLL 1 2 BACKEND host)

expect_equal("${ADAEXPLORE_gemm_ORIGIN}" "DEFAULTS" "ADAEXPLORE_gemm_ORIGIN")
expect_equal("${ADAEXPLORE_host_kernel_ORIGIN}" "DEFAULTS" "ADAEXPLORE_host_kernel_ORIGIN")
expect_file_matches("${ADAEXPLORE_gemm_HEADER}" "kTuned = false")
expect_fake_tuner_calls(device 0)
expect_fake_tuner_calls(tune 0)
expect_fake_tuner_calls("defaults .* --reason ADAEXPLORE_MODE is OFF\\. harness" 2)
