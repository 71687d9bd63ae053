# A parameter named like a C++ keyword: the header's `inline constexpr int int = 16;` would not
# compile. Refused at the call, before anything is tuned, naming the name, why and the fix.
adaexplore_tune_kernel(gemm TEMPLATE kernel.cu.in BENCHMARK bench.cu PARAMS TILE 16 32 int 1 2)
