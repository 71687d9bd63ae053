# SIZES and SIZE_BUDGET reach the spec's "sizes" (tuner/src/model/sizes.hpp): the names in their declared
# order, one array of values per size (pairs separated by spaces or commas), SIZE_BUDGET as its
# "budget"; RUN_ARGS stays "run"."args". Without SIZE_BUDGET there is no "budget" (the tuner's
# default applies), without SIZES no "sizes". PINNED mode uses a pinned header tuned for the same
# sizes (its // Sizes: line), the tuner checking its top-level values (the first size's).
set(ADAEXPLORE_MODE PINNED)
adaexplore_tune_kernel(sizes_spec TEMPLATE kernel.cu.in BENCHMARK bench.cu PARAMS TILE 16 32 UNROLL 1 2
                       BUDGET 30
                       SIZES "M=512 N=256 K=128" "M=4096, N=4096, K=4096"
                       SIZE_BUDGET 7
                       RUN_ARGS --repeat 3
                       PINNED_HEADER pinned-sizes/sizes_spec.hpp)
set(ADAEXPLORE_MODE DEFAULTS)
adaexplore_tune_kernel(default_budget TEMPLATE kernel.cu.in BENCHMARK bench.cu PARAMS TILE 16 32 UNROLL 1 2
                       SIZES "N=100" "N=1")
adaexplore_tune_kernel(no_sizes TEMPLATE kernel.cu.in BENCHMARK bench.cu PARAMS TILE 16 32 UNROLL 1 2)
set(EMPTY_SIZES "")  # SIZES of an empty list: no sizes
adaexplore_tune_kernel(empty_sizes TEMPLATE kernel.cu.in BENCHMARK bench.cu PARAMS TILE 16 32 UNROLL 1 2
                       SIZES ${EMPTY_SIZES})

read_spec(spec sizes_spec)
string(JSON sizes GET "${spec}" sizes)
string(REGEX REPLACE "[ \n]" "" sizes "${sizes}")
# (string(JSON) writes an object's members sorted by key; the arrays keep the declared order)
expect_equal("${sizes}" [==[{"budget":7,"names":["M","N","K"],"values":[[512,256,128],[4096,4096,4096]]}]==]
             "spec member sizes")
expect_json("${spec}" "30" budget evaluations)
expect_json("${spec}" "--repeat" run args 0)
expect_json("${spec}" "3" run args 1)
expect_equal("${ADAEXPLORE_sizes_spec_ORIGIN}" "PINNED" "ADAEXPLORE_sizes_spec_ORIGIN")
file(READ "${CMAKE_CURRENT_SOURCE_DIR}/pinned-sizes/sizes_spec.hpp" pinned)
file(READ "${ADAEXPLORE_sizes_spec_HEADER}" copied)
expect_equal("${copied}" "${pinned}" "the header copied from the pinned one")
expect_fake_tuner_calls("check --spec [^ ]*/sizes_spec/spec.json --config TILE=32,UNROLL=2 --config-from the pinned header [^ ]*/pinned-sizes/sizes_spec.hpp harness" 1)

read_spec(spec default_budget)
string(JSON sizes GET "${spec}" sizes)
string(REGEX REPLACE "[ \n]" "" sizes "${sizes}")
expect_equal("${sizes}" [==[{"names":["N"],"values":[[100],[1]]}]==] "spec member sizes (no SIZE_BUDGET)")
expect_no_json("${spec}" budget)
expect_equal("${ADAEXPLORE_default_budget_ORIGIN}" "DEFAULTS" "ADAEXPLORE_default_budget_ORIGIN")

read_spec(spec no_sizes)
expect_no_json("${spec}" sizes)
read_spec(spec empty_sizes)
expect_no_json("${spec}" sizes)
