# PINNED mode, a pinned header whose values the tuner's check rejects (a constraint or a launch
# limit: `check` exit code 4): an error with the tuner's reason.
set(ADAEXPLORE_MODE PINNED)
set(ENV{FAKE_TUNER_CHECK_RC} 4)
set(ENV{FAKE_TUNER_CHECK_MESSAGE} "the pinned header X: TILE=32,UNROLL=2 violates the constraint \"TILE * UNROLL <= 32\"")
set(ADAEXPLORE_PINNED_DIR "${CMAKE_CURRENT_SOURCE_DIR}/pinned")
adaexplore_tune_kernel(pinned_kernel TEMPLATE kernel.cu.in BENCHMARK bench.cu PARAMS TILE 16 32 UNROLL 1 2
                       CONSTRAINTS "TILE * UNROLL <= 32")
