# Names close to reserved ones are accepted: a kernel named select (its namespace may share a name
# with what the header declares inside it), parameters Int, kSmall and std_, a NAMESPACE part kTuned.
set(ADAEXPLORE_MODE DEFAULTS)
adaexplore_tune_kernel(select TEMPLATE kernel.cu.in BENCHMARK bench.cu PARAMS Int 16 32 kSmall 1 2 std_ 3)
adaexplore_tune_kernel(other TEMPLATE kernel.cu.in BENCHMARK bench.cu PARAMS TILE 16 NAMESPACE blas::kTuned)
expect_equal("${ADAEXPLORE_select_ORIGIN}" "DEFAULTS" "ADAEXPLORE_select_ORIGIN")
expect_equal("${ADAEXPLORE_other_ORIGIN}" "DEFAULTS" "ADAEXPLORE_other_ORIGIN")
