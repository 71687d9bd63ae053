# Cross-compiling in AUTO: nothing is tuned and no GPU is asked for, although this machine has one;
# AUTO acts as CACHED: the stored winner, else the pinned header, else the defaults, for host
# kernels too.
set(ENV{FAKE_TUNER_GPU} 1)
set(CMAKE_CROSSCOMPILING TRUE)
set(ADAEXPLORE_PINNED_DIR "${CMAKE_CURRENT_SOURCE_DIR}/pinned")
file(WRITE "${CMAKE_BINARY_DIR}/_adaexplore/database/stored/fake.jsonl" "tuned device 0\n")
set(args TEMPLATE kernel.cu.in BENCHMARK bench.cu PARAMS TILE 16 32 UNROLL 1 2)
adaexplore_tune_kernel(stored ${args})
adaexplore_tune_kernel(pinned_kernel ${args})
adaexplore_tune_kernel(host_kernel ${args} BACKEND host)

expect_equal("${ADAEXPLORE_stored_ORIGIN}" "TUNED" "stored")
expect_equal("${ADAEXPLORE_pinned_kernel_ORIGIN}" "PINNED" "pinned_kernel")
expect_equal("${ADAEXPLORE_host_kernel_ORIGIN}" "DEFAULTS" "host_kernel")
expect_fake_tuner_calls(device 0)
expect_fake_tuner_calls("tune .* --cached harness" 3)
expect_fake_tuner_calls(tune 3)
expect_fake_tuner_calls("defaults .* --reason Cross-compiling \\(CMAKE_CROSSCOMPILING\\): not tuned on this machine, and the tuning database" 1)
