# PINNED mode, a pinned header whose machine line is malformed ("config" a list): an error naming
# the header and what is wrong with its line, not the tuner's crash.
set(ADAEXPLORE_MODE PINNED)
set(ADAEXPLORE_PINNED_DIR "${CMAKE_CURRENT_SOURCE_DIR}/pinned-malformed")
adaexplore_tune_kernel(config_list TEMPLATE kernel.cu.in BENCHMARK bench.cu PARAMS TILE 16 32 UNROLL 1 2)
