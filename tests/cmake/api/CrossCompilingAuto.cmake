# Cross-compiling in AUTO: nothing is tuned, although this machine has a GPU. A CUDA kernel uses the
# tuning database's stored winner for this machine's GPU only where that GPU has the target
# architecture (ARCH, CMAKE_CUDA_ARCHITECTURES: the Fake GPU is compute capability 9.0); else, and
# for host kernels (this machine's CPU is not the target's), the pinned header, else the defaults.
# The GPU is asked for once, for the comparison.
set(ENV{FAKE_TUNER_GPU} 1)
set(CMAKE_CROSSCOMPILING TRUE)
set(ADAEXPLORE_PINNED_DIR "${CMAKE_CURRENT_SOURCE_DIR}/pinned")
foreach(kernel stored other_arch no_arch host_kernel)
  file(WRITE "${CMAKE_BINARY_DIR}/_adaexplore/database/${kernel}/fake.jsonl" "tuned device 0\n")
endforeach()
set(args TEMPLATE kernel.cu.in BENCHMARK bench.cu PARAMS TILE 16 32 UNROLL 1 2)
adaexplore_tune_kernel(stored ${args} ARCH sm_90)
adaexplore_tune_kernel(other_arch ${args} ARCH sm_87)
adaexplore_tune_kernel(no_arch ${args})
adaexplore_tune_kernel(pinned_kernel ${args} ARCH sm_80)
adaexplore_tune_kernel(host_kernel ${args} BACKEND host)

expect_equal("${ADAEXPLORE_stored_ORIGIN}" "TUNED" "stored (this machine's GPU has the target architecture)")
expect_equal("${ADAEXPLORE_other_arch_ORIGIN}" "DEFAULTS" "other_arch (stored, but for another architecture)")
expect_equal("${ADAEXPLORE_no_arch_ORIGIN}" "DEFAULTS" "no_arch (stored, but no target architecture to compare)")
expect_equal("${ADAEXPLORE_pinned_kernel_ORIGIN}" "PINNED" "pinned_kernel")
expect_equal("${ADAEXPLORE_host_kernel_ORIGIN}" "DEFAULTS" "host_kernel (stored, but of this machine's CPU)")
expect_file_matches("${ADAEXPLORE_other_arch_HEADER}" "kTuned = false")
expect_fake_tuner_calls(device 1)
expect_fake_tuner_calls("tune .* --cached harness" 1)
expect_fake_tuner_calls(tune 1)
expect_fake_tuner_calls("defaults .* --reason Cross-compiling \\(CMAKE_CROSSCOMPILING\\): not tuned on this machine, and its tuning database is not read: its stored tunings are of this machine's GPU 0: Fake GPU, compute capability 9\\.0, and the target architecture is sm_87\\. harness" 1)
expect_fake_tuner_calls("defaults .* --reason Cross-compiling \\(CMAKE_CROSSCOMPILING\\): not tuned on this machine, and its tuning database is not read: its stored tunings are of this machine's CPU" 1)
