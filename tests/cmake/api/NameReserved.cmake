# A kernel named like a macro (NULL) without NAMESPACE: the default namespace adaexplore::NULL
# would not compile.
adaexplore_tune_kernel(NULL TEMPLATE kernel.cu.in BENCHMARK bench.cu PARAMS TILE 16 32)
