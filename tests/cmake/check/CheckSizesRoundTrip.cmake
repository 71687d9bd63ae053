# SIZES with the real tuner, without a GPU: the tuner accepts the "sizes" the module writes, and its
# defaults header is one of problem sizes (the // Sizes: line in declared order, kSizes, select()).
# -check.cmake pins that header: it fits the same call in PINNED mode, and not a call with other
# sizes (SIZES_OF_CALL).
if(NOT DEFINED SIZES_OF_CALL)
  set(SIZES_OF_CALL "N=1048576" "N=1024")
endif()
adaexplore_tune_kernel(scale_sizes TEMPLATE kernels/scale.cuh.in BENCHMARK ${scale}/scale_bench.cu ${scale_tuning}
                       SIZES ${SIZES_OF_CALL} SIZE_BUDGET 5)
expect_file_matches("${ADAEXPLORE_scale_sizes_HEADER}" "\n// Sizes: +N=1048576; N=1024\n")
expect_file_matches("${ADAEXPLORE_scale_sizes_HEADER}" "inline constexpr SizeEntry kSizes\\[\\] = {\n +{{1048576}, {128, 2}},")
expect_file_matches("${ADAEXPLORE_scale_sizes_HEADER}" "constexpr const SizeParams& select\\(long long N\\)")
expect_file_matches("${ADAEXPLORE_scale_sizes_HEADER}" "inline constexpr int BLOCK = 128;")
