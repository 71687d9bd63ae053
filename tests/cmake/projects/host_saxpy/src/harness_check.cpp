// Builds against the harness through AdaExplore::harness; exits 0.
#include <adaexplore/harness_host.hpp>

int main(int argc, char** argv) {
  adaexplore::HostBenchmark bench(argc, argv);
  return bench.args().empty() ? 0 : 1;
}
