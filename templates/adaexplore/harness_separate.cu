// The CUDA harness's non-template functions, compiled once (ADAEXPLORE_HARNESS_SEPARATE and
// ADAEXPLORE_HARNESS_IMPLEMENTATION defined) and linked into every configuration's benchmark,
// which the tuner compiles with ADAEXPLORE_HARNESS_SEPARATE: see harness_common.hpp. Compile it
// with the benchmark's own flags (module or not), or the two disagree on what the harness does.
#ifndef ADAEXPLORE_HARNESS_SEPARATE
#error "harness_separate.cu: compile with -DADAEXPLORE_HARNESS_SEPARATE (a header-only benchmark needs no object)"
#endif
#define ADAEXPLORE_HARNESS_IMPLEMENTATION 1
#include "harness.cuh"
