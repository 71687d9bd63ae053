# A pin location whose kind cannot be told (a loop of symbolic links): the tuner's configure answers
# with one error naming it and what to do, which the module shows; not a crash without an answer.
file(CREATE_LINK "${CMAKE_BINARY_DIR}/loop-back.hpp" "${CMAKE_BINARY_DIR}/loop.hpp" SYMBOLIC)
file(CREATE_LINK "${CMAKE_BINARY_DIR}/loop.hpp" "${CMAKE_BINARY_DIR}/loop-back.hpp" SYMBOLIC)
adaexplore_tune_kernel(gemm TEMPLATE kernel.cu.in BENCHMARK bench.cu PARAMS TILE 16 32 UNROLL 1 2
                       PINNED_HEADER "${CMAKE_BINARY_DIR}/loop.hpp")
