# ADAEXPLORE_DEVICE picks the GPU that is detected (device --index) and tuned on (tune --device),
# and the log names it; a host kernel gets no --device. ADAEXPLORE_DATABASE is passed as
# --database, a relative path taken from the top build folder.
set(ENV{FAKE_TUNER_GPU} 1)
set(ADAEXPLORE_DEVICE 2)
set(ADAEXPLORE_DATABASE shared-db)
set(args TEMPLATE kernel.cu.in BENCHMARK bench.cu PARAMS TILE 16 32 UNROLL 1 2)
adaexplore_tune_kernel(gemm ${args})
adaexplore_tune_kernel(host_kernel ${args} BACKEND host)

expect_equal("${ADAEXPLORE_gemm_ORIGIN}" "TUNED" "ADAEXPLORE_gemm_ORIGIN")
expect_fake_tuner_calls("device --index 2 harness" 1)
expect_fake_tuner_calls(device 1)
set(k "${CMAKE_BINARY_DIR}/_adaexplore/kernels")
set(h "${CMAKE_BINARY_DIR}/adaexplore/include/adaexplore")
expect_fake_tuner_calls("tune --spec ${k}/gemm/spec.json --database ${CMAKE_BINARY_DIR}/shared-db --header ${h}/gemm.hpp --generated ${h} --report [^ ]*/report\\.html --device 2 harness" 1)
expect_fake_tuner_calls("tune --spec ${k}/host_kernel/spec.json --database ${CMAKE_BINARY_DIR}/shared-db --header ${h}/host_kernel.hpp --generated ${h} --report [^ ]*/report\\.html harness" 1)
expect_file_matches("${CMAKE_BINARY_DIR}/shared-db/gemm/fake.jsonl" "^tuned device 2\n$")
