// A benchmark that does not compile: it calls a function nothing declares.
#include <adaexplore/harness.cuh>

#include "scale.cuh"

int main(int argc, char** argv) {
  adaexplore::Benchmark bench(argc, argv);
  return launch_scale_undeclared(bench);
}
