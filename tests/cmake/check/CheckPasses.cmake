# Without a GPU, a correct kernel is checked and configures: the defaults and the pinned values
# compiled for every architecture of CMAKE_CUDA_ARCHITECTURES, with the ptxas report, and the
# pinned header used.
set(CMAKE_CUDA_ARCHITECTURES "80-real;90")
set(ADAEXPLORE_PINNED_DIR "${CMAKE_CURRENT_SOURCE_DIR}/pinned")
adaexplore_tune_kernel(scale_ok TEMPLATE kernels/scale.cuh.in BENCHMARK ${scale}/scale_bench.cu ${scale_tuning})
expect_equal("${ADAEXPLORE_scale_ok_ORIGIN}" "PINNED" "scale_ok")
