# Without a GPU, a template placeholder that is no parameter fails the configure with the tuner's
# message (the one a tuning on a GPU stops with), not the NOT TUNED warning alone.
adaexplore_tune_kernel(scale TEMPLATE kernels/scale_typo.cuh.in BENCHMARK ${scale}/scale_bench.cu ${scale_tuning} ARCH sm_90)
