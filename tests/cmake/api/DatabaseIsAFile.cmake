# ADAEXPLORE_DATABASE naming a regular file: the module says so (it was "the spec, template or
# benchmark is invalid", the words of the tuner's exit code 1), before asking the tuner anything.
set(ENV{FAKE_TUNER_GPU} 1)
file(WRITE "${CMAKE_BINARY_DIR}/not-a-folder" "")
set(ADAEXPLORE_DATABASE "${CMAKE_BINARY_DIR}/not-a-folder")
adaexplore_tune_kernel(gemm TEMPLATE kernel.cu.in BENCHMARK bench.cu PARAMS TILE 16 32 UNROLL 1 2)
