#include "util/cpus.hpp"

#include <sched.h>
#include <unistd.h>

#include <algorithm>

namespace adaexplore {

std::size_t usable_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (::sched_getaffinity(0, sizeof set, &set) != 0) return machine_cpus();
  return std::max(1, CPU_COUNT(&set));
}

std::size_t machine_cpus() {
  const long n = ::sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? static_cast<std::size_t>(n) : 1;
}

std::string narrow_cpu_mask_warning() {
  const std::size_t usable = usable_cpus(), all = machine_cpus();
  if (usable >= all) return "";
  return "this process may run on " + std::to_string(usable) + " of the machine's " + std::to_string(all) +
         " CPUs (its CPU affinity mask: mpirun binds each rank to one core by default, --bind-to core; also srun "
         "--cpu-bind or taskset): its compile workers default to " + std::to_string(usable) +
         ", and compiling is what limits a tuning (on an H100, 2026-12-05: 35.2 evaluations/min bound to a core "
         "against 259.7 with --bind-to none). Start it unbound: mpirun --bind-to none, srun --cpu-bind=none, or "
         "give the task its cores (srun --cpus-per-task=N, mpirun --map-by slot:PE=N) (docs/cluster.md)";
}

}  // namespace adaexplore
