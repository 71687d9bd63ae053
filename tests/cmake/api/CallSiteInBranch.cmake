# Two calls of one kernel in the branches of an if(): the error's first line names the call that
# ran (the second), not the first call of the file naming the kernel.
set(use_small_space FALSE)
if(use_small_space)
  adaexplore_tune_kernel(gemm TEMPLATE kernel.cu.in BENCHMARK bench.cu PARAMS TILE 16 32 BUDGET 10)
else()
  adaexplore_tune_kernel(gemm TEMPLATE kernel.cu.in
                         BENCHMARK bench.cu  # the same benchmark
                         PARAMS TILE 16 32 64 BUDGET "0")
endif()
