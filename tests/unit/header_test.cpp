#include "header.hpp"

#include <chrono>

#include <unistd.h>

#include <gtest/gtest.h>

#include "render.hpp"

namespace adaexplore {
namespace {

namespace fs = std::filesystem;

Parameter numbers(const std::string& name, const std::vector<double>& values) {
  Parameter p{name, {}};
  for (double v : values) p.values.push_back(Value::from_number(v));
  return p;
}

Space gemm_space() {
  Parameter layout{"LAYOUT", {Value::from_text("row"), Value::from_text("col")}};
  return Space({numbers("TILE_M", {16, 32, 64, 128}), numbers("TILE_N", {16, 32, 64}), layout,
                numbers("SCALE", {0.5, 1.25})},
               {});
}

const Config kWinner = {3, 1, 1, 1};
const Config kDefaults = {2, 2, 0, 0};

Outcome measured(const Config& c, double ms) {
  Outcome o;
  o.config = c;
  o.status = Status::ok;
  o.objective = ms;
  o.timing = Timing{ms, ms, ms, ms, 0.0, 50};
  return o;
}

HeaderInfo tuned_info() {
  HeaderInfo info;
  info.kernel = "gemm";
  info.name_space = "adaexplore::gemm";
  info.source = "tuned";
  info.backend = "cuda";
  info.device = {{"name", "NVIDIA H100 80GB HBM3"}, {"compute_capability", "9.0"}, {"sm_count", 132},
                 {"memory_bytes", 85021163520LL},   {"driver_version", "12.4"},     {"runtime_version", "12.4"}};
  info.date = "2024-05-01T12:00:00Z";
  info.strategy = "ga";
  info.seed = 42;
  info.budget = 100;
  info.winner = measured(kWinner, 0.8125);
  info.baseline = measured(kDefaults, 1.625);
  info.counts = {{"ok", 80}, {"compile_error", 12}, {"resource_limit", 5}, {"crash", 3}, {"timeout", 0}};
  info.evaluations = 100;
  return info;
}

HeaderInfo defaults_info() {
  HeaderInfo info;
  info.kernel = "gemm";
  info.name_space = "adaexplore::gemm";
  info.source = "defaults";
  info.reason = "no CUDA GPU (cudaErrorNoDevice: no CUDA-capable device is detected)";
  info.backend = "cuda";
  return info;
}

std::string golden(const std::string& leaf) { return read_file(fs::path(ADAEXPLORE_TEST_DATA) / "header" / leaf); }

TEST(Header, TunedHeaderMatchesTheGoldenFile) {
  EXPECT_EQ(render_header(gemm_space(), kWinner, tuned_info()), golden("gemm_tuned.hpp"));
}

TEST(Header, DefaultsHeaderMatchesTheGoldenFileAndSaysNotTuned) {
  const std::string h = render_header(gemm_space(), kDefaults, defaults_info());
  EXPECT_EQ(h, golden("gemm_defaults.hpp"));
  EXPECT_NE(h.find("// NOT TUNED:"), std::string::npos);
  EXPECT_NE(h.find("inline constexpr bool kTuned = false;"), std::string::npos);
  EXPECT_EQ(h.find("kTuned = true"), std::string::npos);
}

TEST(Header, SameInputsGiveTheSameBytes) {
  const std::string a = render_header(gemm_space(), kWinner, tuned_info());
  const std::string b = render_header(gemm_space(), kWinner, tuned_info());
  EXPECT_EQ(a, b);
  HeaderInfo other = tuned_info();
  other.winner = measured(kWinner, 0.75);
  EXPECT_NE(render_header(gemm_space(), kWinner, other), a);  // the text does depend on its inputs
}

TEST(Header, MultiLineReasonStaysInsideTheComment) {
  HeaderInfo info = defaults_info();
  info.reason = "no GPU:\ncudaErrorInsufficientDriver\r\n";
  const std::string h = render_header(gemm_space(), kDefaults, info);
  const std::string banner = h.substr(0, h.find("#pragma once"));
  std::size_t start = 0;
  while (start < banner.size()) {
    EXPECT_EQ(banner.compare(start, 2, "//"), 0) << "line not a comment in:\n" << h;
    start = banner.find('\n', start) + 1;
  }
}

TEST(Header, ValuesAreValidCppLiterals) {
  Parameter text{"NAME", {Value::from_text("say \"hi\"\\n")}};
  Parameter big{"BIG", {Value::from_number(3000000000.0)}};
  Parameter huge{"HUGE", {Value::from_number(1e20)}};
  Parameter neg{"NEG", {Value::from_number(-4)}};
  const Space s({text, big, huge, neg}, {});
  const std::string h = render_header(s, {0, 0, 0, 0}, defaults_info());
  EXPECT_NE(h.find("inline constexpr const char* NAME = \"say \\\"hi\\\"\\\\n\";"), std::string::npos) << h;
  EXPECT_NE(h.find("inline constexpr long long BIG = 3000000000LL;"), std::string::npos) << h;
  EXPECT_NE(h.find("inline constexpr double HUGE = 1e+20;"), std::string::npos) << h;
  EXPECT_NE(h.find("inline constexpr int NEG = -4;"), std::string::npos) << h;
}

TEST(Header, WriteFileIfChangedKeepsAnUnchangedHeader) {
  const fs::path file = fs::temp_directory_path() / ("adaexplore-header-" + std::to_string(::getpid())) / "gemm.hpp";
  const std::string h = render_header(gemm_space(), kWinner, tuned_info());
  ASSERT_TRUE(write_file_if_changed(file, h));
  const auto old_time = fs::last_write_time(file) - std::chrono::hours(2);
  fs::last_write_time(file, old_time);
  EXPECT_FALSE(write_file_if_changed(file, render_header(gemm_space(), kWinner, tuned_info())));
  EXPECT_EQ(fs::last_write_time(file), old_time);
  EXPECT_EQ(read_file(file), h);
  fs::remove_all(file.parent_path());
}

}  // namespace
}  // namespace adaexplore
