// bench/failure_space: the committed specs load, every configuration renders, and the cuda
// backend's prepare() (render + nvcc for sm_90 + ptxas report + static check, no GPU needed) gives
// the real ptxas resource_limit for the largest tile and compiles the defaults. The runtime
// failures (launch_error, crash, wrong_result) need the H200: tools/device-run.sh failures.
#include <gtest/gtest.h>
#include <unistd.h>

#include "evaluate/backends.hpp"
#include "util/process.hpp"
#include "evaluate/render.hpp"
#include "test_support.hpp"
#include "util/files.hpp"

namespace adaexplore {
namespace {

namespace fs = std::filesystem;

const fs::path kFailureSpace = fs::path(ADAEXPLORE_SOURCE_DIR) / "bench" / "failure_space";

class FailureSpaceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    work_ = test::fresh_test_directory("failure-space");
  }
  void TearDown() override {
    if (!HasFailure()) fs::remove_all(work_);
  }

  // The committed spec, with its evaluations' files in a temporary folder.
  Spec load(const fs::path& file, const std::string& compiler = "") const {
    nlohmann::json j = nlohmann::json::parse(read_file(file));
    j["work_dir"] = work_.string();
    if (!compiler.empty()) j["compiler"]["path"] = compiler;
    return parse_spec(j, file);
  }

  static void expect_every_configuration_renders(const Spec& spec, std::size_t size) {
    const std::string text = read_file(spec.template_path);
    const auto configs = spec.space.enumerate_valid();
    ASSERT_EQ(configs.size(), size);
    for (const Config& c : configs) {
      const std::string rendered = render_template(text, spec.template_path, spec.space, c);
      EXPECT_EQ(rendered.find("${"), std::string::npos) << spec.space.label(c);
      const std::string tile = "constexpr int kTile = " + spec.space.value(c, 0).text + ";";
      EXPECT_NE(rendered.find(tile), std::string::npos) << spec.space.label(c);
    }
  }

  fs::path work_;
};

TEST_F(FailureSpaceTest, EveryCudaConfigurationRenders) {
  const Spec spec = load(kFailureSpace / "spec.json");
  EXPECT_EQ(spec.backend, "cuda");
  EXPECT_EQ(spec.space.names(), (std::vector<std::string>{"TILE", "BLOCK_ROWS", "VEC", "PAD"}));
  expect_every_configuration_renders(spec, 4 * 6 * 3 * 3);
}

TEST_F(FailureSpaceTest, EveryHostConfigurationRenders) {
  const Spec spec = load(kFailureSpace / "host" / "spec.json");
  EXPECT_EQ(spec.backend, "host");
  EXPECT_EQ(spec.space.names(), (std::vector<std::string>{"TILE", "VEC", "STRIPS", "UNROLL"}));
  expect_every_configuration_renders(spec, 5 * 4 * 3 * 3);
}

// TILE = 128: a 128 x 128 float tile is 64 KiB of static shared memory; ptxas refuses more than
// 48 KiB. The defaults (the textbook 32 x 8 block, PAD 1) compile: 32 x 33 x 4 = 4224 bytes.
TEST_F(FailureSpaceTest, LargestTileIsAPtxasResourceLimitAndTheDefaultsCompileForSm90) {
  const std::string nvcc = test::nvcc_path();
  if (nvcc.empty()) GTEST_SKIP() << "nvcc not found (PATH, /usr/local/cuda/bin)";
  const Spec spec = load(kFailureSpace / "spec.json", nvcc);
  ASSERT_EQ(spec.compiler.arch, "sm_90");
  auto backend = make_cuda_backend(spec, DeviceInfo{});

  const Prepared big = backend->prepare(
      spec.space.config_from_texts({{"TILE", "128"}, {"BLOCK_ROWS", "8"}, {"VEC", "1"}, {"PAD", "0"}}));
  ASSERT_TRUE(big.failure);
  EXPECT_EQ(big.failure->status, Status::resource_limit) << big.failure->message;
  EXPECT_NE(big.failure->message.find("uses too much shared data (0x10000 bytes, 0xc000 max)"), std::string::npos)
      << big.failure->message;
  EXPECT_EQ(big.failure->extra["resource"], "shared_memory") << big.failure->extra.dump();
  EXPECT_EQ(big.failure->extra["used"], 65536);
  EXPECT_EQ(big.failure->extra["limit"], 48 * 1024);

  const Prepared ok = backend->prepare(spec.defaults);
  ASSERT_FALSE(ok.failure) << ok.failure->message;
  EXPECT_TRUE(fs::exists(ok.executable));
  ASSERT_EQ(ok.resources.size(), 1u);
  EXPECT_NE(ok.resources.front().kernel.find("transpose_kernel"), std::string::npos) << ok.resources.front().kernel;
  EXPECT_EQ(ok.resources.front().shared_bytes, 32 * 33 * 4);
  EXPECT_EQ(ok.resources.front().arch, "sm_90");
}

// VEC = 3: alignas(12) is refused (an alignment must be a power of two) by GCC and Clang alike.
TEST_F(FailureSpaceTest, HostVectorOfThreeIsACompileError) {
  const Spec spec = load(kFailureSpace / "host" / "spec.json");
  std::unique_ptr<Backend> backend;
  try {
    backend = make_host_backend(spec);
  } catch (const std::runtime_error& e) {
    GTEST_SKIP() << e.what();
  }
  const Prepared p = backend->prepare(
      spec.space.config_from_texts({{"TILE", "64"}, {"VEC", "3"}, {"STRIPS", "1"}, {"UNROLL", "1"}}));
  ASSERT_TRUE(p.failure);
  EXPECT_EQ(p.failure->status, Status::compile_error) << p.failure->message;
  EXPECT_NE(p.failure->message.find("requested alignment"), std::string::npos) << p.failure->message;
  EXPECT_NE(p.failure->message.find("power of 2"), std::string::npos) << p.failure->message;
}

}  // namespace
}  // namespace adaexplore
