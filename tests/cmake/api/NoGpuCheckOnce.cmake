# Without a GPU each kernel is checked once per change: the check's summary (what was checked) and
# ptxas report follow the NOT TUNED line; a reconfigure with nothing changed does not run it again
# (check.stamp), a changed template does (see -check.cmake).
set(CMAKE_CUDA_ARCHITECTURES "80-real;90")
if(NOT EXISTS "${CMAKE_BINARY_DIR}/kernel.cu.in")
  file(COPY "${CMAKE_CURRENT_SOURCE_DIR}/kernel.cu.in" DESTINATION "${CMAKE_BINARY_DIR}")
endif()
set(first_configure TRUE)
if(EXISTS "${CMAKE_BINARY_DIR}/_adaexplore/kernels/gemm/check.stamp")
  set(first_configure FALSE)
endif()
adaexplore_tune_kernel(gemm TEMPLATE "${CMAKE_BINARY_DIR}/kernel.cu.in" BENCHMARK bench.cu PARAMS TILE 16 32 UNROLL 1 2)
if(first_configure)
  expect_fake_tuner_calls("check --spec [^ ]*/gemm/spec.json --arch sm_80 --arch sm_90 harness" 1)
endif()
