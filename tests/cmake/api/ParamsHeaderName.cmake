# A parameter named like a name the generated header declares itself (kTuned), and one reserved to
# the compiler (a double underscore): both refused at the call.
adaexplore_tune_kernel(gemm TEMPLATE kernel.cu.in BENCHMARK bench.cu PARAMS TILE 16 32 kTuned 1 2)
