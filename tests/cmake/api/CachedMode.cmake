# CACHED evaluates nothing: `tune --cached` per kernel. A stored winner gives the tuned header;
# where the database has none (exit code 3), the pinned header (a status line says so), else the
# defaults (a warning says so). No GPU is asked for (no pinned header here records a device).
set(ADAEXPLORE_MODE CACHED)
set(ADAEXPLORE_DATABASE "${CMAKE_BINARY_DIR}/db")
set(ADAEXPLORE_PINNED_DIR "${CMAKE_CURRENT_SOURCE_DIR}/pinned")
file(WRITE "${ADAEXPLORE_DATABASE}/stored/fake.jsonl" "tuned device 0\n")
set(args TEMPLATE kernel.cu.in BENCHMARK bench.cu PARAMS TILE 16 32 UNROLL 1 2)
adaexplore_tune_kernel(stored ${args})
adaexplore_tune_kernel(pinned_kernel ${args})
adaexplore_tune_kernel(missing ${args})

expect_equal("${ADAEXPLORE_stored_ORIGIN}" "TUNED" "stored (the database's winner)")
expect_equal("${ADAEXPLORE_pinned_kernel_ORIGIN}" "PINNED" "pinned_kernel (not stored, pinned)")
expect_equal("${ADAEXPLORE_missing_ORIGIN}" "DEFAULTS" "missing (neither stored nor pinned)")
expect_file_matches("${ADAEXPLORE_stored_HEADER}" "tune --cached.*kTuned = true")
expect_file_matches("${ADAEXPLORE_pinned_kernel_HEADER}" "A pinned header for the API cases")
expect_file_matches("${ADAEXPLORE_missing_HEADER}" "kTuned = false")
expect_fake_tuner_calls("tune --spec [^ ]*/stored/spec.json --database ${CMAKE_BINARY_DIR}/db --header [^ ]*/stored.hpp --generated [^ ]* --report [^ ]*/report\\.html --device 0 --cached harness" 1)
expect_fake_tuner_calls("tune .* --cached harness" 3)
expect_fake_tuner_calls(tune 3)
expect_fake_tuner_calls(device 0)
expect_fake_tuner_calls("defaults .* --reason ADAEXPLORE_MODE is CACHED and the tuning database \\(ADAEXPLORE_DATABASE\\) holds no tuning of its current spec, sources and device\\. harness" 1)
