// The spec's kernel parts (model/kernel_spec.hpp): a macro-configured kernel source, the declared
// launch shape, the arguments of a generated benchmark (model/generated_benchmark.hpp), the
// reference configuration, the tolerance and the macro prefix.
#include "model/kernel_spec.hpp"

#include "model/generated_benchmark.hpp"
#include "model/spec.hpp"

#include <gtest/gtest.h>

namespace adaexplore {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const fs::path kFile = "/specs/vector_add.json";

// Kernel Tuner's vector_add example as a spec: the kernel unchanged, its arguments declared.
json vector_add() {
  return json::parse(R"json({
    "name": "vector_add", "backend": "cuda", "kernel_source": "vector_add.cu", "kernel": "vector_add",
    "parameters": [{"name": "block_size_x", "values": [128, 192, 256]}, {"name": "tile", "values": [1, 2]}],
    "sizes": {"names": ["N"], "values": [[10000000], [1000]]},
    "launch": {"block": ["block_size_x"], "grid": ["ceil(N / (block_size_x * tile))"]},
    "arguments": ["output float c[N]", "input float a[N]", "inout float b[N] = zero",
                  "scalar int n = N", "global float ns::factor[2 * 2] = one"],
    "reference": "defaults",
    "tolerance": {"rel": "0", "abs": "sqrt(N) * 2**-24"}
  })json");
}

std::string error_of(const json& j) {
  try {
    parse_spec(j, kFile);
  } catch (const SpecError& e) {
    return e.what();
  }
  return "(no error)";
}

#define EXPECT_CONTAINS(haystack, needle) \
  EXPECT_NE(std::string(haystack).find(needle), std::string::npos) << "in: " << (haystack)

TEST(KernelSpec, AKernelTunerStyleSpecIsReadCompletely) {
  const Spec s = parse_spec(vector_add(), kFile);
  EXPECT_TRUE(s.macro_kernel);
  EXPECT_EQ(s.template_path, fs::path("/specs/vector_add.cu"));
  EXPECT_EQ(s.kernel, "vector_add");
  EXPECT_EQ(s.benchmark_path, fs::path("/specs/vector_add.work/generated/vector_add_bench.cu"));
  ASSERT_EQ(s.arguments.size(), 5u);
  EXPECT_EQ(s.arguments[0].kind, "output");
  EXPECT_EQ(s.arguments[2].init, "zero");
  EXPECT_EQ(s.arguments[3].kind, "scalar");
  EXPECT_EQ(s.arguments[3].value->text(), "N");
  EXPECT_EQ(s.arguments[4].name, "ns::factor");
  EXPECT_EQ(s.arguments[4].length->text(), "2 * 2");
  EXPECT_TRUE(s.reference.given);
  EXPECT_EQ(s.reference.config, s.defaults);
  EXPECT_EQ(s.macro_prefix, "ADAEXPLORE_VECTOR_ADD_");
  ASSERT_EQ(s.launch.block.size(), 1u);
  ASSERT_EQ(s.launch.grid.size(), 1u);
  // The threads per block follow from the block (the static checks use them).
  ASSERT_TRUE(s.launch.threads_per_block);
  const Config c = s.space.config_from_texts({{"block_size_x", "192"}, {"tile", "2"}});
  const std::vector<long long> big = {10000000};
  EXPECT_EQ(whole_value(*s.launch.threads_per_block, s.space, c, &big, 1), 192);
  EXPECT_EQ(whole_value(s.launch.grid[0], s.space, c, &big, 1), 26042);  // ceil(10^7 / 384)
  // Without a size, an expression reading one is unknown, never a wrong number.
  EXPECT_FALSE(whole_value(s.launch.grid[0], s.space, c, nullptr, 1));
}

TEST(KernelSpec, ArgumentsAsObjectsAreTheSame) {
  json j = vector_add();
  j["arguments"] = json::parse(R"json([{"name": "c", "kind": "output", "type": "float", "length": "N"},
                                   {"name": "n", "kind": "scalar", "type": "unsigned long long", "value": "N"}])json");
  const Spec s = parse_spec(j, kFile);
  EXPECT_EQ(s.arguments[1].type, "unsigned long long");
}

TEST(KernelSpec, LaunchExpressionsGivingNoWholeNumberForTheDefaultsAreRefusedAtEverySize) {
  json j = vector_add();
  j["launch"]["grid"] = {"N / block_size_x"};  // 1000 / 128 is no whole number
  EXPECT_CONTAINS(error_of(j), "/specs/vector_add.json: launch.grid[0]: \"N / block_size_x\" gives 7.8125 for the "
                               "defaults block_size_x=128,tile=1 at the size N=1000; it must give a whole number >= 1");
  j["launch"]["grid"] = {"ceil(M / 2)"};
  EXPECT_CONTAINS(error_of(j), "launch.grid[0]: constraint \"ceil(M / 2)\", column 6: unknown parameter 'M'");
  j["launch"]["grid"] = {"1", "2", "3", "4"};
  EXPECT_CONTAINS(error_of(j), "launch.grid: must be a list of 1 to 3 expressions");
}

TEST(KernelSpec, BadArgumentsAreNamed) {
  auto with_arguments = [](const json& arguments) {
    json j = vector_add();
    j["arguments"] = arguments;
    return error_of(j);
  };
  EXPECT_CONTAINS(with_arguments({"output float c"}),
                  "arguments[0]: \"output float c\" is not \"<input|output|inout|global> <type> <name>[<length>]");
  EXPECT_CONTAINS(with_arguments({"output float c[N]", "outptu float d[N]"}),
                  "arguments[1] \"outptu float d[N]\" (d): kind 'outptu' is not one of input, output, inout, scalar, global");
  EXPECT_CONTAINS(with_arguments({"output flaot c[N]"}), "type 'flaot' is not one of float, double, int");
  EXPECT_CONTAINS(with_arguments({"output float c[N]", "input float c[N]"}), "the name 'c' is given twice");
  EXPECT_CONTAINS(with_arguments({"output float c[N] = zero"}), "an output is poisoned before the checked run");
  EXPECT_CONTAINS(with_arguments({"input float a[N]"}), "no output or inout argument");
  EXPECT_CONTAINS(with_arguments({"output float c[N]", "input float a[N] = ones"}),
                  "'ones' is not one of random, zero, one, sequence");
  // With a reference configuration every configuration fills the same buffers.
  EXPECT_CONTAINS(with_arguments({"output float c[N * tile]"}),
                  "arguments (c).length: \"N * tile\" reads a parameter");
}

TEST(KernelSpec, AGeneratedBenchmarkNeedsTheKernelTheShapeAndAReference) {
  json j = vector_add();
  j.erase("kernel");
  EXPECT_CONTAINS(error_of(j), "kernel: a generated benchmark (\"arguments\") needs the kernel's name");
  j = vector_add();
  j["launch"].erase("grid");
  EXPECT_CONTAINS(error_of(j), "launch: a generated benchmark (\"arguments\") needs the launch shape");
  j = vector_add();
  j.erase("reference");
  EXPECT_CONTAINS(error_of(j), "reference: a generated benchmark (\"arguments\") compares the outputs with a reference");
  j = vector_add();
  j["benchmark"] = "bench.cu";
  EXPECT_CONTAINS(error_of(j), "arguments: give either \"benchmark\"");
}

TEST(KernelSpec, ReferenceToleranceAndPrefix) {
  json j = vector_add();
  j["reference"] = {{"config", {{"block_size_x", 256}, {"tile", 2}}}};
  const Spec s = parse_spec(j, kFile);
  EXPECT_EQ(s.space.label(s.reference.config), "block_size_x=256,tile=2");
  j["reference"] = {{"config", {{"block_size_x", 100}, {"tile", 2}}}};
  EXPECT_CONTAINS(error_of(j), "reference.config:");
  j = vector_add();
  j["reference"] = "default";
  EXPECT_CONTAINS(error_of(j), "reference: must be \"defaults\" or {\"config\"");
  j = vector_add();
  j["tolerance"] = {{"rel", "-1"}};
  EXPECT_CONTAINS(error_of(j), "tolerance.rel: \"-1\" gives -1 at the size N=10000000; a tolerance is a number >= 0");
  j = vector_add();
  j["macro_prefix"] = "";
  EXPECT_EQ(parse_spec(j, kFile).macro_prefix, "");
  j["macro_prefix"] = "9X";
  EXPECT_CONTAINS(error_of(j), "macro_prefix: '9X' does not start an identifier");
}

TEST(KernelSpec, MacroKernelsAndArgumentsAreCudaOnly) {
  json j = vector_add();
  j["backend"] = "host";
  j.erase("launch");
  EXPECT_CONTAINS(error_of(j), "kernel_source: a macro-configured kernel is a CUDA kernel");
  j = vector_add();
  j["template"] = "k.cu.in";
  EXPECT_CONTAINS(error_of(j), "kernel_source: give either \"template\"");
}

TEST(GeneratedBenchmark, LaunchesTheKernelWithTheDeclaredArgumentsAndComparesWithTheReference) {
  const std::string b = generated_benchmark_source(parse_spec(vector_add(), kFile));
  EXPECT_CONTAINS(b, "#include <adaexplore/harness.cuh>");
  EXPECT_CONTAINS(b, "auto arg_c = bench.output<float>(static_cast<std::size_t>(bench.value(\"c\")));");
  EXPECT_CONTAINS(b, "auto arg_a = bench.input<float>(static_cast<std::size_t>(bench.value(\"a\")), adaexplore::Fill::random);");
  EXPECT_CONTAINS(b, "auto arg_b = bench.inout<float>(static_cast<std::size_t>(bench.value(\"b\")), adaexplore::Fill::zero);");
  EXPECT_CONTAINS(b, "bench.global<float>(\"ns::factor\", static_cast<std::size_t>(bench.value(\"ns::factor\")), adaexplore::Fill::one);");
  EXPECT_CONTAINS(b, "bytes += 2.0 * static_cast<double>(arg_b.size()) * sizeof(float);");  // read and written
  EXPECT_CONTAINS(b, "const adaexplore::Kernel kernel = bench.kernel();");
  EXPECT_CONTAINS(b, "return bench.run([&] { bench.launch(kernel, arg_c, arg_a, arg_b, "
                     "static_cast<int>(bench.value(\"n\"))); }, bench.tolerance());");
  EXPECT_EQ(b, generated_benchmark_source(parse_spec(vector_add(), kFile)));  // deterministic
}

}  // namespace
}  // namespace adaexplore
