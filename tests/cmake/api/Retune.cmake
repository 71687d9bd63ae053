# -DADAEXPLORE_RETUNE=first: only `first` is tuned with --retune; the configure then clears the
# cache entry and says so, and a reconfigure retunes nothing (see -check.cmake).
set(ENV{FAKE_TUNER_GPU} 1)
set(args TEMPLATE kernel.cu.in BENCHMARK bench.cu PARAMS TILE 16 32 UNROLL 1 2)
adaexplore_tune_kernel(first ${args})
adaexplore_tune_kernel(second ${args})
