# PINNED mode with no tuner at hand: the module reads the machine line itself (string(JSON)); one
# that is malformed ("config" a list) is an error saying so and naming the header, not "has no
# value for the parameter".
set(ADAEXPLORE_TUNER_EXECUTABLE "")
set(ADAEXPLORE_MODE PINNED)
set(ADAEXPLORE_PINNED_DIR "${CMAKE_CURRENT_SOURCE_DIR}/pinned-malformed")
adaexplore_tune_kernel(config_list TEMPLATE kernel.cu.in BENCHMARK bench.cu PARAMS TILE 16 32 UNROLL 1 2)
