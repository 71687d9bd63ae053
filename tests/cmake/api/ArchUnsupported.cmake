# ARCH an architecture the CUDA compiler cannot target (sm_35 with CUDA 13; the API cases' nvcc is
# fake-nvcc/nvcc, which lists CUDA 13.0's): an error at the call, naming it and the supported ones.
adaexplore_tune_kernel(gemm TEMPLATE kernel.cu.in BENCHMARK bench.cu PARAMS TILE 16 32 UNROLL 1 2 ARCH sm_35)
