// The static resource check and the occupancy estimate, on real ptxas reports
// (tests/data/ptxas/) and, where the toolkit is installed, against NVIDIA's own occupancy
// calculator (<cuda_occupancy.h>, header-only host code).
#include "evaluate/resource_check.hpp"

#include "model/spec.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#if defined(ADAEXPLORE_HAVE_CUDART) && __has_include(<cuda_occupancy.h>)
#include <cuda_occupancy.h>
#define ADAEXPLORE_HAVE_CUDA_OCCUPANCY 1
#endif

namespace adaexplore {
namespace {

std::vector<KernelResources> report(const std::string& name) {
  std::ifstream in(std::string(ADAEXPLORE_TEST_DATA) + "/ptxas/" + name, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return parse_ptxas_report(text.str());
}

KernelResources kernel(const std::vector<KernelResources>& kernels, const std::string& mangled) {
  for (const auto& k : kernels)
    if (k.kernel == mangled) return k;
  throw std::runtime_error("no kernel " + mangled);
}

DeviceLimits limits(const std::string& cc) {
  auto l = limits_for_compute_capability(cc);
  if (!l) throw std::runtime_error("no limits for " + cc);
  return *l;
}

KernelResources with_registers(int registers) {
  KernelResources k;
  k.kernel = "_Z1kv";
  k.demangled = "k()";
  k.registers = registers;
  return k;
}

LaunchShape threads(int n, long dynamic_bytes = 0) { return LaunchShape{n, dynamic_bytes, true}; }

const char* const kTile32 = "_Z14tile_transposeILi32EEvPfPKfi";
const char* const kTile104 = "_Z14tile_transposeILi104EEvPfPKfi";

TEST(ResourceCheck, CompiledKernelsFit) {
  for (const char* file : {"sm_80.txt", "sm_90.txt"}) {
    const auto kernels = report(file);
    ASSERT_EQ(kernels.size(), 6u);
    EXPECT_FALSE(check_resources(kernels, limits("sm_90"), threads(256))) << file;
    EXPECT_FALSE(check_resources(kernels, limits("sm_80"), threads(256))) << file;
  }
}

TEST(ResourceCheck, StaticSharedOver48KiBNamesKernelFigureAndLimit) {
  const auto v = check_resources(report("sm_90_too_much_shared.txt"), limits("sm_90"), threads(256));
  ASSERT_TRUE(v);
  EXPECT_EQ(v->kernel, "_Z14tile_transposeILi120EEvPfPKfi");
  EXPECT_EQ(v->what, Resource::shared_memory);
  EXPECT_EQ(v->used, 58080);
  EXPECT_EQ(v->limit, 49152);
  EXPECT_NE(v->reason.find("void tile_transpose<120>(float*, float const*, int)"), std::string::npos) << v->reason;
  EXPECT_NE(v->reason.find("58080 bytes of static shared memory"), std::string::npos) << v->reason;
  EXPECT_NE(v->reason.find("49152-byte"), std::string::npos) << v->reason;
}

TEST(ResourceCheck, DynamicSharedUpToTheOptInLimitOfEachArchitecture) {
  const KernelResources& tile = kernel(report("sm_90.txt"), kTile104);  // 43680 bytes static
  const long sm90_room = 227 * 1024 - 43680;
  const long sm80_room = 163 * 1024 - 43680;
  EXPECT_FALSE(check_resources(tile, limits("sm_90"), threads(256, sm90_room)));
  EXPECT_TRUE(check_resources(tile, limits("sm_90"), threads(256, sm90_room + 1)));
  EXPECT_FALSE(check_resources(tile, limits("sm_80"), threads(256, sm80_room)));
  const auto v = check_resources(tile, limits("sm_80"), threads(256, sm80_room + 1));
  ASSERT_TRUE(v);
  EXPECT_EQ(v->used, 163 * 1024 + 1);
  EXPECT_EQ(v->limit, 163 * 1024);
  EXPECT_NE(v->reason.find("(with the opt-in)"), std::string::npos) << v->reason;
  // What fits an H100 does not fit an A100.
  EXPECT_FALSE(check_resources(tile, limits("sm_90"), threads(256, 150000)));
  EXPECT_TRUE(check_resources(tile, limits("sm_80"), threads(256, 150000)));
}

TEST(ResourceCheck, DynamicSharedOver48KiBNeedsTheOptIn) {
  const KernelResources& add = kernel(report("sm_90.txt"), "vector_add");
  LaunchShape no_opt_in{256, 48 * 1024, false};
  EXPECT_FALSE(check_resources(add, limits("sm_90"), no_opt_in));
  no_opt_in.dynamic_shared_bytes += 1;
  const auto v = check_resources(add, limits("sm_90"), no_opt_in);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->limit, 48 * 1024);
  EXPECT_NE(v->reason.find("without the opt-in"), std::string::npos) << v->reason;
}

TEST(ResourceCheck, RegisterAllocationGranularity) {
  EXPECT_EQ(registers_per_block(15, 32), 512);     // 15 x 32 = 480, allocated as 512 per warp
  EXPECT_EQ(registers_per_block(64, 1024), 65536);
  EXPECT_EQ(registers_per_block(255, 256), 65536);  // 8160 -> 8192 per warp, x 8 warps
  EXPECT_EQ(registers_per_block(255, 257), 73728);  // a 9th warp, though 255 x 257 = 65535
  const DeviceLimits sm90 = limits("sm_90");
  EXPECT_FALSE(check_resources(with_registers(64), sm90, threads(1024)));   // exactly 65536
  EXPECT_FALSE(check_resources(with_registers(255), sm90, threads(256)));   // exactly 65536
  EXPECT_TRUE(check_resources(with_registers(65), sm90, threads(1024)));
  EXPECT_TRUE(check_resources(with_registers(255), sm90, threads(257)));
}

TEST(ResourceCheck, WarpsRoundUpToSubPartitions) {
  // 136 registers = 4352 per warp; 15 warps need 65280 (fits) but the hardware counts 16.
  EXPECT_EQ(registers_per_block(136, 480), 65280);
  const auto v = check_resources(with_registers(136), limits("sm_80"), threads(480));
  ASSERT_TRUE(v);
  EXPECT_EQ(v->what, Resource::registers);
  EXPECT_EQ(v->used, 69632);
  EXPECT_EQ(v->limit, 65536);
  EXPECT_EQ(v->reason, "k(): 136 registers per thread x 480 threads need 69632 registers per block (allocated "
                       "per warp in units of 256, warps rounded up to a multiple of 4), over the limit of 65536 "
                       "registers");
}

TEST(ResourceCheck, ThreadsPerBlock) {
  const KernelResources& add = kernel(report("sm_80.txt"), "vector_add");
  EXPECT_FALSE(check_resources(add, limits("sm_80"), threads(1024)));
  const auto v = check_resources(add, limits("sm_80"), threads(1025));
  ASSERT_TRUE(v);
  EXPECT_EQ(v->what, Resource::threads);
  EXPECT_EQ(v->reason, "vector_add: 1025 threads per block, over the device's limit of 1024 threads");
  EXPECT_FALSE(check_resources(add, limits("sm_80"), LaunchShape{}));  // block size unknown
}

// The spec's "launch" expressions evaluated per configuration (spec.hpp) feed the check: a block
// of BLOCK_X * BLOCK_Y threads over 1024 is a threads violation for the kernels of a real report.
TEST(ResourceCheck, LaunchShapeFromTheSpecsExpressions) {
  const nlohmann::json j = {
      {"name", "k"},
      {"backend", "cuda"},
      {"template", "k.cu.in"},
      {"benchmark", "k_bench.cu"},
      {"parameters", {{{"name", "BLOCK_X"}, {"values", {0, 32, 64}}}, {{"name", "BLOCK_Y"}, {"values", {8, 32}}}}},
      {"defaults", {{"BLOCK_X", 32}, {"BLOCK_Y", 8}}},
      {"launch",
       {{"threads_per_block", "BLOCK_X * BLOCK_Y"},
        {"dynamic_shared_bytes", "4 * 2048 / BLOCK_X * BLOCK_Y"},
        {"dynamic_shared_opt_in", false}}}};
  const Spec spec = parse_spec(j, "/specs/k.json");
  auto shape = [&](const std::string& x, const std::string& y) {
    return launch_shape(spec.launch, spec.space, spec.space.config_from_texts({{"BLOCK_X", x}, {"BLOCK_Y", y}}));
  };
  EXPECT_EQ(shape("32", "8").threads_per_block, 256);
  EXPECT_EQ(shape("32", "8").dynamic_shared_bytes, 2048);
  EXPECT_FALSE(shape("32", "8").dynamic_shared_opt_in);
  EXPECT_FALSE(shape("0", "8").threads_per_block);         // 0 threads: not a block size, left unchecked
  EXPECT_EQ(shape("0", "8").dynamic_shared_bytes, 0);       // 8192 / 0 = NaN: unknown, 0

  const auto kernels = report("sm_90.txt");
  const KernelResources& add = kernel(kernels, "vector_add");
  EXPECT_FALSE(check_resources(add, limits("sm_90"), shape("32", "32")));  // 1024 threads
  const auto v = check_resources(kernels, limits("sm_90"), shape("64", "32"));  // vector_add comes first
  ASSERT_TRUE(v);
  EXPECT_EQ(v->what, Resource::threads);
  EXPECT_EQ(v->used, 2048);
  EXPECT_EQ(v->reason, "vector_add: 2048 threads per block, over the device's limit of 1024 threads");
  // 43680 bytes of static shared memory + 8192 / 32 * 32 = 8192 dynamic, without the opt-in: over 48 KiB.
  const auto shared = check_resources(kernel(kernels, kTile104), limits("sm_90"), shape("32", "32"));
  ASSERT_TRUE(shared);
  EXPECT_EQ(shared->what, Resource::shared_memory);
  EXPECT_EQ(shared->used, 43680 + 8192);
  EXPECT_EQ(shared->limit, 48 * 1024);
}

TEST(ResourceCheck, RegistersPerThreadAndLocalMemory) {
  EXPECT_EQ(check_resources(with_registers(256), limits("sm_90"))->what, Resource::registers);
  KernelResources deep = with_registers(30);
  deep.stack_bytes = 512 * 1024;
  EXPECT_FALSE(check_resources(deep, limits("sm_90"), threads(32)));
  deep.stack_bytes = 1200000;  // what ptxas 13 accepts for `float buf[300000]` on the stack
  const auto v = check_resources(deep, limits("sm_90"), threads(32));
  ASSERT_TRUE(v);
  EXPECT_EQ(v->what, Resource::local_memory);
  EXPECT_EQ(v->limit, 524288);
}

TEST(ResourceCheck, SpillsAreNotFailures) {
  const KernelResources& pressure = kernel(report("sm_90.txt"), "_Z17register_pressurePfPKf");
  ASSERT_GT(pressure.spill_store_bytes, 0);
  EXPECT_FALSE(check_resources(pressure, limits("sm_90"), threads(1024)));
}

TEST(Occupancy, LimitedByThreads) {
  const Occupancy o = occupancy(kernel(report("sm_90.txt"), kTile32), limits("sm_90"), 256);
  EXPECT_EQ(o.blocks_per_sm, 8);
  EXPECT_EQ(o.warps_per_sm, 64);
  EXPECT_DOUBLE_EQ(o.fraction, 1.0);
  EXPECT_EQ(o.limited_by, Resource::threads);
}

TEST(Occupancy, LimitedBySharedMemoryWithTheReservedKiB) {
  // 43680 + 1024 reserved = 44704, allocated as 44800: 3 blocks in 164 KiB, 5 in 228 KiB.
  const Occupancy a100 = occupancy(kernel(report("sm_80.txt"), kTile104), limits("sm_80"), 256);
  EXPECT_EQ(a100.blocks_per_sm, 3);
  EXPECT_EQ(a100.warps_per_sm, 24);
  EXPECT_DOUBLE_EQ(a100.fraction, 0.375);
  EXPECT_EQ(a100.limited_by, Resource::shared_memory);
  EXPECT_EQ(occupancy(kernel(report("sm_90.txt"), kTile104), limits("sm_90"), 256).blocks_per_sm, 5);
}

TEST(Occupancy, LimitedByRegistersOrBlockCount) {
  // 38 registers = 1280 per warp: 12 warps per sub-partition, 48 per SM: one block of 32 warps.
  const Occupancy caller = occupancy(kernel(report("sm_90.txt"), "_Z12calls_gatherPfPKf"), limits("sm_90"), 1024);
  EXPECT_EQ(caller.blocks_per_sm, 1);
  EXPECT_EQ(caller.limited_by, Resource::registers);
  const Occupancy tiny = occupancy(kernel(report("sm_90.txt"), "vector_add"), limits("sm_90"), 32);
  EXPECT_EQ(tiny.blocks_per_sm, 32);
  EXPECT_DOUBLE_EQ(tiny.fraction, 0.5);
  EXPECT_EQ(tiny.limited_by, Resource::unspecified);
  EXPECT_EQ(occupancy(kernel(report("sm_90.txt"), "vector_add"), limits("sm_90"), 32, 0, 16).blocks_per_sm, 16);
}

TEST(Occupancy, ZeroWhenTheKernelCannotLaunch) {
  const auto too_big = report("sm_90_too_much_shared.txt");
  EXPECT_EQ(occupancy(kernel(too_big, "_Z14tile_transposeILi120EEvPfPKfi"), limits("sm_90"), 256).blocks_per_sm, 0);
  EXPECT_EQ(occupancy(with_registers(65), limits("sm_90"), 1024).blocks_per_sm, 0);
}

#ifdef ADAEXPLORE_HAVE_CUDA_OCCUPANCY
struct Reference {
  int blocks = 0;
  unsigned factors = 0;
};

// NVIDIA's calculator for a kernel that opted in to the largest dynamic shared memory.
Reference reference_occupancy(const DeviceLimits& l, int major, int minor, const KernelResources& k, int threads,
                              long dynamic_bytes) {
  cudaOccDeviceProp props;
  props.computeMajor = major;
  props.computeMinor = minor;
  props.maxThreadsPerBlock = l.max_threads_per_block;
  props.maxThreadsPerMultiprocessor = l.max_threads_per_sm;
  props.regsPerBlock = l.registers_per_block;
  props.regsPerMultiprocessor = l.registers_per_sm;
  props.warpSize = l.warp_size;
  props.sharedMemPerBlock = l.shared_per_block;
  props.sharedMemPerMultiprocessor = l.shared_per_sm;
  props.numSms = 100;
  props.sharedMemPerBlockOptin = l.shared_per_block_optin;
  props.reservedSharedMemPerBlock = 1024;
  cudaOccFuncAttributes attributes;
  attributes.maxThreadsPerBlock = l.max_threads_per_block;
  attributes.numRegs = k.registers;
  attributes.sharedSizeBytes = k.shared_bytes;
  attributes.shmemLimitConfig = FUNC_SHMEM_LIMIT_OPTIN;
  attributes.maxDynamicSharedSizeBytes = l.shared_per_block_optin - k.shared_bytes;
  cudaOccDeviceState state;
  cudaOccResult result{};
  EXPECT_EQ(cudaOccMaxActiveBlocksPerMultiprocessor(&result, &props, &attributes, &state, threads, dynamic_bytes),
            CUDA_OCC_SUCCESS);
  return {result.activeBlocksPerMultiprocessor, result.limitingFactors};
}

unsigned factor_bit(Resource r) {
  switch (r) {
    case Resource::threads: return OCC_LIMIT_WARPS;
    case Resource::registers: return OCC_LIMIT_REGISTERS;
    case Resource::shared_memory: return OCC_LIMIT_SHARED_MEMORY;
    default: return OCC_LIMIT_BLOCKS;
  }
}

TEST(Occupancy, AgreesWithCudaOccupancyCalculator) {
  struct Arch { const char* cc; int major, minor, max_blocks; };
  const Arch archs[] = {{"80", 8, 0, 32}, {"86", 8, 6, 16}, {"89", 8, 9, 24}, {"90", 9, 0, 32}};
  int compared = 0;
  for (const Arch& arch : archs) {
    const DeviceLimits l = limits(arch.cc);
    for (int regs : {0, 8, 15, 32, 38, 64, 65, 72, 128, 136, 168, 200, 255})
      for (int t : {32, 64, 96, 128, 160, 224, 256, 384, 480, 512, 640, 992, 1024})
        for (long smem : {0L, 4224L, 43680L, 49152L})
          for (long dynamic : {0L, 1000L, 20000L, 100000L}) {
            KernelResources k = with_registers(regs);
            k.shared_bytes = smem;
            const Reference want = reference_occupancy(l, arch.major, arch.minor, k, t, dynamic);
            const Occupancy got = occupancy(k, l, t, dynamic, arch.max_blocks);
            const std::string where = std::string("sm_") + arch.cc + " regs " + std::to_string(regs) + " threads " +
                                      std::to_string(t) + " smem " + std::to_string(smem) + "+" +
                                      std::to_string(dynamic);
            ASSERT_EQ(got.blocks_per_sm, want.blocks) << where;
            ASSERT_EQ(check_resources(k, l, threads(t, dynamic)).has_value(), want.blocks == 0) << where;
            if (want.blocks > 0) EXPECT_TRUE(want.factors & factor_bit(got.limited_by)) << where;
            ++compared;
          }
  }
  EXPECT_EQ(compared, 4 * 13 * 13 * 4 * 4);
}
#else
TEST(Occupancy, AgreesWithCudaOccupancyCalculator) {
  GTEST_SKIP() << "built without the CUDA toolkit: <cuda_occupancy.h> is not available to compare against";
}
#endif

}  // namespace
}  // namespace adaexplore
