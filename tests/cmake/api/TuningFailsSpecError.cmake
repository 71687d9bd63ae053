# A tuning that fails on its spec or template (exit code 1): no ADAEXPLORE_MODE is suggested, since
# DEFAULTS and PINNED check the spec and template too.
set(ENV{FAKE_TUNER_GPU} 1)
set(ENV{FAKE_TUNER_TUNE_RC} 1)
adaexplore_tune_kernel(gemm TEMPLATE kernel.cu.in BENCHMARK bench.cu PARAMS TILE 16 32 UNROLL 1 2)
