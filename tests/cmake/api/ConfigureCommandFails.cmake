# The configure command failing otherwise (here exit code 5 without an answer): the error shows the
# tuner's exit code and its own messages, and does not blame the tuner's version.
set(ENV{FAKE_TUNER_CONFIGURE} fails)
adaexplore_tune_kernel(gemm TEMPLATE kernel.cu.in BENCHMARK bench.cu PARAMS TILE 16 32 UNROLL 1 2)
