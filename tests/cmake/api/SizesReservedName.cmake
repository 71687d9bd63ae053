# A size named like a keyword (and): the header's `struct Size { long long and; }` would not compile.
adaexplore_tune_kernel(gemm TEMPLATE kernel.cu.in BENCHMARK bench.cu PARAMS TILE 16 32 SIZES "M=512 and=256")
