# adaexplore-pin fails, saying why, where no kernel was tuned (-check.cmake builds it).
set(ADAEXPLORE_MODE DEFAULTS)
adaexplore_tune_kernel(gemm TEMPLATE kernel.cu.in BENCHMARK bench.cu PARAMS TILE 16 32 UNROLL 1 2
                       PINNED_HEADER "${CMAKE_BINARY_DIR}/pins/gemm.hpp")
