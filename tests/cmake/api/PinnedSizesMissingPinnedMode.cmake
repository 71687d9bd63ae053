# PINNED mode, a call with SIZES and a pinned header without a // Sizes: line (pinned from a tuning
# at one size): an error naming the header and the call's sizes.
set(ADAEXPLORE_MODE PINNED)
set(ADAEXPLORE_PINNED_DIR "${CMAKE_CURRENT_SOURCE_DIR}/pinned-sizes")
adaexplore_tune_kernel(sizes_missing TEMPLATE kernel.cu.in BENCHMARK bench.cu PARAMS TILE 16 32 UNROLL 1 2
                       SIZES "M=512 N=256" "M=4096 N=4096")
