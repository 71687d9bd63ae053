# The tuner's exit code 5 (the environment: a folder not writable, a full disk, a database path that
# is a file) gets its own words, not those of bad input.
set(ENV{FAKE_TUNER_GPU} 1)
set(ENV{FAKE_TUNER_TUNE_RC} 5)
adaexplore_tune_kernel(gemm TEMPLATE kernel.cu.in BENCHMARK bench.cu PARAMS TILE 16 32 UNROLL 1 2)
