# Without a GPU and without nvcc (a machine without the CUDA toolkit): the configure still works,
# with the DEFAULTS; the check says that nothing was compiled, and why.
set(ENV{PATH} "/usr/bin:/bin")
adaexplore_tune_kernel(scale TEMPLATE kernels/scale.cuh.in BENCHMARK ${scale}/scale_bench.cu ${scale_tuning} ARCH sm_90)
expect_equal("${ADAEXPLORE_scale_ORIGIN}" "DEFAULTS" "scale")
