# A tuner without the configure command (older than the module) refuses it as CLI11 refuses an
# unknown subcommand: the error says so and which tuner to use.
set(ENV{FAKE_TUNER_CONFIGURE} missing)
adaexplore_tune_kernel(gemm TEMPLATE kernel.cu.in BENCHMARK bench.cu PARAMS TILE 16 32 UNROLL 1 2)
