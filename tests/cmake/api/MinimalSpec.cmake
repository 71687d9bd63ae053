# Keywords left out stay out of the spec (the tuner's defaults apply). ADAEXPLORE_MODE=DEFAULTS
# writes the defaults header without asking for a GPU, even where there is one, and says why.
set(ENV{FAKE_TUNER_GPU} 1)
set(ADAEXPLORE_MODE DEFAULTS)
adaexplore_tune_kernel(gemm TEMPLATE kernel.cu.in BENCHMARK bench.cu PARAMS TILE 16 32 UNROLL 1 2)

read_spec(spec gemm)
expect_json("${spec}" "cuda" backend)
expect_json("${spec}" "[]" constraints)
expect_json("${spec}" "work" work_dir)
foreach(member namespace strategy defaults budget seed jobs "compiler;path" "compiler;arch" "compiler;flags"
               "compiler;include_dirs" "compiler;launcher"
               "compiler;timeout_s" "run;args" "run;timeout_s" "run;timeout_factor" "run;timeout_floor_s" launch)
  expect_no_json("${spec}" ${member})
endforeach()

expect_equal("${ADAEXPLORE_gemm_ORIGIN}" "DEFAULTS" "ADAEXPLORE_gemm_ORIGIN")
expect_file_matches("${ADAEXPLORE_gemm_HEADER}" "kTuned = false")
expect_fake_tuner_calls(device 0)
expect_fake_tuner_calls(tune 0)
expect_fake_tuner_calls("defaults --spec [^ ]*/_adaexplore/kernels/gemm/spec.json --header [^ ]*/adaexplore/include/adaexplore/gemm.hpp --reason ADAEXPLORE_MODE is DEFAULTS. harness <${ADAEXPLORE_HARNESS_INCLUDE_DIR}>$" 1)

# DEFAULTS mode wins over an existing pinned header too.
adaexplore_tune_kernel(with_pin TEMPLATE kernel.cu.in BENCHMARK bench.cu PARAMS TILE 16 32 UNROLL 1 2
                       PINNED_HEADER pinned/pinned_kernel.hpp)
expect_equal("${ADAEXPLORE_with_pin_ORIGIN}" "DEFAULTS" "ADAEXPLORE_with_pin_ORIGIN")
expect_file_matches("${ADAEXPLORE_with_pin_HEADER}" "kTuned = false")
