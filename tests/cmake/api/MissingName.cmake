adaexplore_tune_kernel()
