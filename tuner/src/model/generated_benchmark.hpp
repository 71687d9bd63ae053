// The benchmark the tuner writes for a spec with "arguments" (kernel_spec.hpp): a program against
// the CUDA harness (templates/adaexplore/harness.cuh) that makes one buffer per input, output and
// inout argument (their lengths from Benchmark::value, which the tuner evaluates per
// configuration), sets each global, launches the spec's "kernel" with the declared launch shape
// (Benchmark::launch) and the arguments in order, and compares every output and inout buffer
// with the reference configuration's (Benchmark::run with bench.tolerance()). For example, for
//   "arguments": [{"name": "c", "kind": "output", "type": "float", "length": "N"},
//                 {"name": "a", "kind": "input", "type": "float", "length": "N"},
//                 {"name": "n", "kind": "scalar", "type": "int", "value": "N"}]
// it writes
//   auto c = bench.output<float>(static_cast<std::size_t>(bench.value("c")));
//   auto a = bench.input<float>(static_cast<std::size_t>(bench.value("a")), adaexplore::Fill::random);
//   const adaexplore::Kernel kernel = bench.kernel();
//   return bench.run([&] { bench.launch(kernel, c, a, static_cast<int>(bench.value("n"))); },
//                    bench.tolerance());
// A scalar's value is read inside the launch (it may depend on the configuration). The figure of
// merit: the bytes of every buffer (inputs and inouts read, outputs and inouts written), for the
// record's GB/s.
#pragma once

#include <string>

namespace adaexplore {

struct Spec;

/// The generated benchmark's source text for `spec` (generated_benchmark(spec) true).
/// Deterministic: the same spec gives the same text.
std::string generated_benchmark_source(const Spec& spec);

}  // namespace adaexplore
