# PINNED mode, a pinned header tuned for other sizes than the call's SIZES (its // Sizes: line): an
# error naming the header and both lists of sizes.
set(ADAEXPLORE_MODE PINNED)
set(ADAEXPLORE_PINNED_DIR "${CMAKE_CURRENT_SOURCE_DIR}/pinned-sizes")
adaexplore_tune_kernel(sizes_other TEMPLATE kernel.cu.in BENCHMARK bench.cu PARAMS TILE 16 32 UNROLL 1 2
                       SIZES "M=512 N=256" "M=4096 N=4096")
