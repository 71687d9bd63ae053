# Without a GPU, DEFAULTS over the target's launch limit (THREADS_PER_BLOCK 2048 > 1024) fail the
# configure, before any compile.
adaexplore_tune_kernel(scale TEMPLATE kernels/scale.cuh.in BENCHMARK ${scale}/scale_bench.cu
                       PARAMS BLOCK 128 2048 ITEMS 1 2 DEFAULTS BLOCK=2048 ITEMS=1 THREADS_PER_BLOCK BLOCK ARCH sm_90)
