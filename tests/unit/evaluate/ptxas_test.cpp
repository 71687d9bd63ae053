// The ptxas report parser and resource-error recogniser on real nvcc 13.0 output
// (tests/data/ptxas/, made by regenerate.sh from kernels.cu).
#include "evaluate/ptxas.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace adaexplore {
namespace {

std::string read_capture(const std::string& name) {
  const std::string path = std::string(ADAEXPLORE_TEST_DATA) + "/ptxas/" + name;
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

KernelResources find_kernel(const std::vector<KernelResources>& kernels, const std::string& mangled) {
  for (const auto& k : kernels)
    if (k.kernel == mangled) return k;
  throw std::runtime_error("no kernel " + mangled + " in the report");
}

const char* const kTile32 = "_Z14tile_transposeILi32EEvPfPKfi";
const char* const kTile104 = "_Z14tile_transposeILi104EEvPfPKfi";
const char* const kTile120 = "_Z14tile_transposeILi120EEvPfPKfi";

TEST(PtxasReport, EveryEntryOfTheSm90ReportInOrder) {
  const auto kernels = parse_ptxas_report(read_capture("sm_90.txt"));
  std::vector<std::string> names;
  for (const auto& k : kernels) names.push_back(k.kernel);
  EXPECT_EQ(names, (std::vector<std::string>{"vector_add", "_Z17register_pressurePfPKf", "_Z12calls_gatherPfPKf",
                                             "_Z11stack_arrayPfPKfi", kTile104, kTile32}));
  for (const auto& k : kernels) EXPECT_EQ(k.arch, "sm_90") << k.kernel;
}

TEST(PtxasReport, SharedMemoryRegistersAndBarriersOfTheTiles) {
  const auto sm90 = parse_ptxas_report(read_capture("sm_90.txt"));
  const auto& tile32 = find_kernel(sm90, kTile32);
  EXPECT_EQ(tile32.registers, 15);
  EXPECT_EQ(tile32.barriers, 1);
  EXPECT_EQ(tile32.shared_bytes, 4224);  // 32 x 33 floats
  EXPECT_EQ(tile32.stack_bytes, 0);
  EXPECT_EQ(tile32.constant_bytes, 0);   // nvcc 13 prints no cmem[0] for sm_90
  EXPECT_EQ(tile32.demangled, "void tile_transpose<32>(float*, float const*, int)");
  EXPECT_EQ(find_kernel(sm90, kTile104).shared_bytes, 43680);  // 104 x 105 floats

  const auto sm80 = parse_ptxas_report(read_capture("sm_80.txt"));
  EXPECT_EQ(find_kernel(sm80, kTile32).registers, 14);
  EXPECT_EQ(find_kernel(sm80, kTile32).constant_bytes, 372);
  EXPECT_EQ(find_kernel(sm80, kTile104).shared_bytes, 43680);
}

TEST(PtxasReport, StackSpillsAndCumulativeStack) {
  const auto sm90 = parse_ptxas_report(read_capture("sm_90.txt"));
  const auto& stack = find_kernel(sm90, "_Z11stack_arrayPfPKfi");
  EXPECT_EQ(stack.registers, 22);
  EXPECT_EQ(stack.stack_bytes, 1024);
  EXPECT_EQ(stack.spill_store_bytes, 0);
  const auto& pressure = find_kernel(sm90, "_Z17register_pressurePfPKf");
  EXPECT_EQ(pressure.registers, 32);  // __launch_bounds__(1024, 2)
  EXPECT_EQ(pressure.stack_bytes, 992);
  EXPECT_EQ(pressure.spill_store_bytes, 2280);
  EXPECT_EQ(pressure.spill_load_bytes, 2360);
  EXPECT_EQ(find_kernel(parse_ptxas_report(read_capture("sm_80.txt")), "_Z17register_pressurePfPKf").spill_load_bytes,
            2352);
  const auto& caller = find_kernel(sm90, "_Z12calls_gatherPfPKf");
  EXPECT_EQ(caller.registers, 38);
  EXPECT_EQ(caller.stack_bytes, 128);
}

TEST(PtxasReport, CalleesAreNotKernels) {
  // "Function properties for _Z6gatherPKfi" follows calls_gather's entry: not an entry itself,
  // and its (zero) frame must not overwrite the caller's.
  for (const auto& k : parse_ptxas_report(read_capture("sm_80.txt"))) EXPECT_NE(k.kernel, "_Z6gatherPKfi");
}

TEST(PtxasReport, ExternCNamesStayAsTheyAre) {
  const auto& add = find_kernel(parse_ptxas_report(read_capture("sm_80.txt")), "vector_add");
  EXPECT_EQ(add.demangled, "vector_add");
  EXPECT_EQ(add.registers, 12);
  EXPECT_EQ(add.constant_bytes, 380);
  EXPECT_EQ(demangle("_Z17register_pressurePfPKf"), "register_pressure(float*, float const*)");
}

TEST(PtxasReport, RejectedKernelIsStillReported) {
  // ptxas prints the error first, then the full report, including the kernel it rejected.
  const auto kernels = parse_ptxas_report(read_capture("sm_90_too_much_shared.txt"));
  EXPECT_EQ(kernels.size(), 7u);
  EXPECT_EQ(find_kernel(kernels, kTile120).shared_bytes, 58080);
  EXPECT_EQ(find_kernel(kernels, kTile120).registers, 15);
}

TEST(PtxasReport, StreamsGluedWithoutANewline) {
  // When stdout and stderr are concatenated, a message can start mid-line: "...cmem[0]ptxas error".
  std::string text = read_capture("sm_80_too_much_shared.txt");
  const std::size_t error_end = text.find('\n') + 1;
  const std::string error = text.substr(0, error_end - 1);
  text.erase(0, error_end);
  const std::size_t cmem = text.find("380 bytes cmem[0]") + std::string("380 bytes cmem[0]").size();
  text.insert(cmem, error);
  ASSERT_NE(text.find("cmem[0]ptxas error   : Entry function"), std::string::npos);

  const auto glued = parse_ptxas_report(text);
  const auto clean = parse_ptxas_report(read_capture("sm_80_too_much_shared.txt"));
  ASSERT_EQ(glued.size(), clean.size());
  EXPECT_EQ(find_kernel(glued, "vector_add").constant_bytes, 380);
  EXPECT_EQ(find_kernel(glued, kTile120).shared_bytes, 58080);
  const auto found = find_ptxas_resource_error(text);
  ASSERT_TRUE(found);
  EXPECT_EQ(found->kernel, kTile120);
  EXPECT_EQ(found->message, error);
}

TEST(PtxasReport, SeveralArchitecturesAndWindowsLineEnds) {
  std::string both = read_capture("sm_80.txt") + read_capture("sm_90.txt");
  std::string crlf;
  for (char c : both) crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
  const auto kernels = parse_ptxas_report(crlf);
  ASSERT_EQ(kernels.size(), 12u);
  EXPECT_EQ(kernels[0].arch, "sm_80");
  EXPECT_EQ(kernels[6].arch, "sm_90");
  EXPECT_EQ(kernels[11].kernel, kTile32);
  EXPECT_EQ(kernels[11].registers, 15);
  EXPECT_EQ(kernels[11].shared_bytes, 4224);
}

TEST(PtxasReport, NothingToReadGivesNothing) {
  EXPECT_TRUE(parse_ptxas_report("").empty());
  EXPECT_TRUE(parse_ptxas_report(read_capture("sm_90_parameter_overflow.txt")).empty());
  EXPECT_FALSE(find_ptxas_resource_error(""));
}

TEST(PtxasResourceError, TooMuchSharedDataOnBothArchitectures) {
  for (const char* file : {"sm_80_too_much_shared.txt", "sm_90_too_much_shared.txt"}) {
    const auto e = find_ptxas_resource_error(read_capture(file));
    ASSERT_TRUE(e) << file;
    EXPECT_EQ(e->kernel, kTile120);
    EXPECT_EQ(e->what, Resource::shared_memory);
    EXPECT_EQ(e->used, 0xe2e0);
    EXPECT_EQ(e->used, 58080);
    EXPECT_EQ(e->limit, 0xc000);
    EXPECT_EQ(e->message, "ptxas error   : Entry function '_Z14tile_transposeILi120EEvPfPKfi' uses too much "
                          "shared data (0xe2e0 bytes, 0xc000 max)");
  }
}

TEST(PtxasResourceError, ParameterSpaceFromTheFrontEnd) {
  const auto e = find_ptxas_resource_error(read_capture("sm_90_parameter_overflow.txt"));
  ASSERT_TRUE(e);
  EXPECT_EQ(e->kernel, "_Z14huge_parameter4HugePf");
  EXPECT_EQ(e->what, Resource::parameter_space);
  EXPECT_EQ(e->used, 36008);
  EXPECT_EQ(e->limit, 32764);
}

TEST(PtxasResourceError, FileScopeConstantData) {
  const auto e = find_ptxas_resource_error(read_capture("sm_90_constant_overflow.txt"));
  ASSERT_TRUE(e);
  EXPECT_EQ(e->kernel, "");
  EXPECT_EQ(e->what, Resource::constant_memory);
  EXPECT_EQ(e->used, 80000);  // 20000 floats
  EXPECT_EQ(e->limit, 65536);
}

TEST(PtxasResourceError, SuccessfulReportsHaveNone) {
  EXPECT_FALSE(find_ptxas_resource_error(read_capture("sm_80.txt")));
  EXPECT_FALSE(find_ptxas_resource_error(read_capture("sm_90.txt")));
}

// The messages below are not captured: ptxas 13.0 accepts every kernel we tried that should
// trigger them. They follow the format strings in the ptxas binary (`strings ptxas`).
TEST(PtxasResourceError, LocalDataWithSystemBytesAddsBoth) {
  const auto e = find_ptxas_resource_error(
      "ptxas error   : Entry function '_Z3bigPf' uses too much local data (0x7ff00 bytes + 0x200 bytes system, "
      "0x80000 max)\n");
  ASSERT_TRUE(e);
  EXPECT_EQ(e->kernel, "_Z3bigPf");
  EXPECT_EQ(e->what, Resource::local_memory);
  EXPECT_EQ(e->used, 0x7ff00 + 0x200);
  EXPECT_EQ(e->limit, 0x80000);
}

TEST(PtxasResourceError, ConstantBankAndParameterSpaceOfAnEntry) {
  auto e = find_ptxas_resource_error(
      "ptxas error   : Entry function 'k' uses too much constant data (bank 3, 0x10010 bytes, 0x10000 max)");
  ASSERT_TRUE(e);
  EXPECT_EQ(e->what, Resource::constant_memory);
  EXPECT_EQ(e->used, 0x10010);
  EXPECT_EQ(e->limit, 0x10000);
  e = find_ptxas_resource_error("ptxas error   : Entry function 'k' uses too much parameter space (0x8010 bytes, "
                                "0x7ffc max).");
  ASSERT_TRUE(e);
  EXPECT_EQ(e->what, Resource::parameter_space);
  EXPECT_EQ(e->used, 0x8010);
  EXPECT_EQ(e->limit, 0x7ffc);
}

TEST(PtxasResourceError, InsufficientRegisters) {
  const auto e = find_ptxas_resource_error(
      "ptxas error   : Insufficient registers (24) to compile instruction at line 12 in function _Z4gemmPf. "
      "Try to compile with register target of 40 or higher.");
  ASSERT_TRUE(e);
  EXPECT_EQ(e->kernel, "_Z4gemmPf");
  EXPECT_EQ(e->what, Resource::registers);
  EXPECT_EQ(e->used, 40);
  EXPECT_EQ(e->limit, 24);
}

// ptxas's register allocator giving up (issue 23): a register resource_limit, not a compile error.
// The text as ptxas 12 printed it for a Triton kernel on sm_100a (triton-lang/triton#8488); ptxas
// 13.0's binary holds the same format ("Register allocation failed with register count of '%d'.
// Compile the program with a higher register target").
TEST(PtxasResourceError, RegisterAllocationFailed) {
  const std::string output =
      "ptxas info    : (C7516) Potential Performance Loss: wgmma.mma_async instructions are serialized due to ill "
      "formed pipeline stage in the function '_Z4gemmPf'\n"
      "ptxas fatal   : (C7600) Register allocation failed with register count of '255'. Compile the program "
      "with a higher register target\n"
      "ptxas fatal   : Ptx assembly aborted due to errors\n";
  const auto e = find_ptxas_resource_error(output);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->what, Resource::registers);
  EXPECT_EQ(e->limit, 255);
  EXPECT_EQ(e->used, 0);
  EXPECT_EQ(e->kernel, "");
  EXPECT_EQ(e->message.rfind("ptxas fatal   : (C7600) Register allocation failed", 0), 0u) << e->message;
}

// The advisories of a compile that succeeds (real nvcc 13.0 output, advisories.cu), kept verbatim
// and in order; the resource report's info lines are not warnings.
TEST(PtxasWarnings, PerformanceAdvisoriesOfARealCompile) {
  const auto warnings = find_ptxas_warnings(read_capture("sm_90a_advisories.txt"));
  ASSERT_EQ(warnings.size(), 3u);
  EXPECT_EQ(warnings[0].rfind("ptxas info    : (C7519) warpgroup.arrive is injected", 0), 0u) << warnings[0];
  EXPECT_EQ(warnings[1].rfind("ptxas info    : (C7517) warpgroup.wait is injected", 0), 0u) << warnings[1];
  EXPECT_EQ(warnings[2],
            "ptxas info    : (C7511) Potential Performance Loss: wgmma.mma_async instructions are serialized due to "
            "insufficient register resources for the wgmma pipeline in the function '_Z16wgmma_serializedPfyj'");
  // The report itself still parses.
  const auto kernels = parse_ptxas_report(read_capture("sm_90a_advisories.txt"));
  ASSERT_EQ(kernels.size(), 1u);
  EXPECT_EQ(kernels[0].registers, 34);
}

TEST(PtxasWarnings, WarningLinesAreKeptOnceAndTheReportIsNot) {
  // Real ptxas 13.0 lines (.maxnreg over the limit on sm_90a), the last two glued as stdout and
  // stderr may be.
  const std::string output =
      "ptxas warning : Too many maxnreg specified for entry maxn, will be ignored\n"
      "ptxas info    : (C7507) Potential Performance Loss: 'setmaxnreg' ignored to maintain minimum register "
      "requirements.\nptxas info    : Used 154 registers, used 0 barriers\n"
      "ptxas warning : Too many maxnreg specified for entry maxn, will be ignored"
      "ptxas info    : Compile time = 148.545 ms\n";
  const auto warnings = find_ptxas_warnings(output);
  ASSERT_EQ(warnings.size(), 2u);
  EXPECT_EQ(warnings[0], "ptxas warning : Too many maxnreg specified for entry maxn, will be ignored");
  EXPECT_EQ(warnings[1].rfind("ptxas info    : (C7507) Potential Performance Loss", 0), 0u) << warnings[1];
  EXPECT_TRUE(find_ptxas_warnings(read_capture("sm_90.txt")).empty());
}

TEST(PtxasResourceError, LaunchOutOfResourcesFromTheRuntime) {
  const auto e = find_ptxas_resource_error(
      "launching gemm: cudaErrorLaunchOutOfResources: too many resources requested for launch\n");
  ASSERT_TRUE(e);
  EXPECT_EQ(e->what, Resource::unspecified);
  EXPECT_EQ(e->kernel, "");
  EXPECT_EQ(e->used, 0);
}

TEST(PtxasResourceError, OtherDiagnosticsAreNotResourceErrors) {
  // A real ptxas warning (maxnreg over the limit is ignored, not an error) and a syntax error.
  EXPECT_FALSE(find_ptxas_resource_error("ptxas warning : Too many maxnreg specified for entry _Z2mxPf, will be "
                                         "ignored\n"));
  EXPECT_FALSE(find_ptxas_resource_error("kernel.cu(3): error: identifier \"TILE\" is undefined\n"));
}

}  // namespace
}  // namespace adaexplore
