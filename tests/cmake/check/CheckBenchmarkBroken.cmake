# Without a GPU, a benchmark that does not compile fails the configure with the compiler's error
# (the defaults compiled for ARCH, as a tuning compiles them).
adaexplore_tune_kernel(scale TEMPLATE kernels/scale.cuh.in ${scale_tuning} BENCHMARK kernels/scale_broken_bench.cu
                       INCLUDE_DIRECTORIES ${scale} ARCH sm_90)
