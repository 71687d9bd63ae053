#include "util/cpus.hpp"

#include <sched.h>

#include <cstdlib>

#include <gtest/gtest.h>

namespace adaexplore {
namespace {

TEST(Cpus, UnboundTheProcessMayRunOnItsMaskWithoutAWarningWhenItIsTheMachine) {
  EXPECT_GE(usable_cpus(), 1u);
  EXPECT_LE(usable_cpus(), machine_cpus());
  if (usable_cpus() == machine_cpus()) EXPECT_EQ(narrow_cpu_mask_warning(), "");
}

// A process bound to one core (mpirun's default --bind-to core for 2 ranks or fewer): its compile
// workers default to 1, not the machine's CPUs (2026-12-05 on an H100: 16 workers on one core,
// 7.4x slower), and the warning says how to start it unbound.
TEST(Cpus, ANarrowMaskIsCountedAndWarnedOf) {
  if (machine_cpus() < 2) GTEST_SKIP() << "one CPU: no mask can be narrower than the machine";
  EXPECT_EXIT(
      {
        cpu_set_t one;
        CPU_ZERO(&one);
        CPU_SET(0, &one);
        if (::sched_setaffinity(0, sizeof one, &one) != 0) std::_Exit(3);
        const std::string w = narrow_cpu_mask_warning();
        const bool said = w.find("this process may run on 1 of the machine's " + std::to_string(machine_cpus()) + " CPUs") == 0 &&
                          w.find("mpirun --bind-to none, srun --cpu-bind=none") != std::string::npos &&
                          w.find("--cpus-per-task") != std::string::npos;
        std::_Exit(usable_cpus() == 1 && said ? 0 : 2);
      },
      ::testing::ExitedWithCode(0), "");
}

}  // namespace
}  // namespace adaexplore
