# BACKEND host tunes on the CPU: no GPU needed, none asked for, no warning.
adaexplore_tune_kernel(saxpy TEMPLATE kernel.cu.in BENCHMARK bench.cu PARAMS TILE 16 32 UNROLL 1 2 BACKEND host)

read_spec(spec saxpy)
expect_json("${spec}" "host" backend)
expect_no_json("${spec}" compiler arch)
expect_equal("${ADAEXPLORE_saxpy_ORIGIN}" "TUNED" "ADAEXPLORE_saxpy_ORIGIN")
expect_file_matches("${ADAEXPLORE_saxpy_HEADER}" "kTuned = true")
expect_fake_tuner_calls(device 0)
expect_fake_tuner_calls(tune 1)
