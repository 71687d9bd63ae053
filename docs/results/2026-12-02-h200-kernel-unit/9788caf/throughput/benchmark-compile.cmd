== build-throughput/_adaexplore/kernels/gemm/work/benchmark/compile.cmd
/usr/local/cuda/bin/nvcc -std=c++17 -O1 -arch=sm_90 -Xptxas -v -lineinfo -I/work/main/examples/gemm -I/work/main/templates -DADAEXPLORE_KERNEL_UNIT=1 -shared -Xcompiler -fPIC -Xcompiler -fno-gnu-unique -cudart shared -Xlinker --no-undefined -DADAEXPLORE_MODULE=1 -Xlinker -rpath=/usr/local/cuda-13.0/lib64 -MD -MF /work/main/build-throughput/_adaexplore/kernels/gemm/work/benchmark/benchmark.d /work/main/examples/gemm/gemm_bench.cu -o /work/main/build-throughput/_adaexplore/kernels/gemm/work/benchmark/benchmark.so
# served from /tmp/adaexplore-cache.pwDjSG/kernels
== build-throughput/_adaexplore/kernels/gemm/work/check/sm_90/benchmark/compile.cmd
# with nvcc, not as plain C++: the harness is not built apart
/usr/local/cuda/bin/nvcc -std=c++17 -O1 -arch=sm_90 -Xptxas -v -lineinfo -I/work/main/examples/gemm -I/work/main/templates -DADAEXPLORE_KERNEL_UNIT=1 -MD -MF /work/main/build-throughput/_adaexplore/kernels/gemm/work/check/sm_90/benchmark/benchmark.d /work/main/examples/gemm/gemm_bench.cu -o /work/main/build-throughput/_adaexplore/kernels/gemm/work/check/sm_90/benchmark/benchmark
