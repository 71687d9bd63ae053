// The CPUs a tuning may use: its compile workers default to them (ProgramBackend::parallelism).
#pragma once

#include <cstddef>
#include <string>

namespace adaexplore {

/// The CPUs this process may run on: its affinity mask (sched_getaffinity), which a launcher may
/// narrow (mpirun binds each rank to one core by default for 2 ranks or fewer, --bind-to core;
/// srun --cpu-bind; taskset), at least 1. std::thread::hardware_concurrency() counts the
/// machine's instead, and 16 compile workers on one allowed core ran one at a time.
std::size_t usable_cpus();
/// The machine's online CPUs (sysconf(_SC_NPROCESSORS_ONLN)), at least 1.
std::size_t machine_cpus();
/// A warning when usable_cpus() < machine_cpus(), saying how many, why it slows a tuning and how
/// to start the process without the binding; "" otherwise.
std::string narrow_cpu_mask_warning();

}  // namespace adaexplore
