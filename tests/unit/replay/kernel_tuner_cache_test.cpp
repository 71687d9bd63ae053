#include "replay/kernel_tuner_cache.hpp"

#include <gtest/gtest.h>

#include <fstream>

#include "util/process.hpp"
#include "test_support.hpp"

namespace adaexplore {
namespace {

using nlohmann::json;

std::filesystem::path write_text(const std::string& name, const std::string& text) {
  const auto path = test::process_test_directory("kernel-tuner-cache-test") / name;
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

// The header of a small file: bx in {16, 32, 64}, by in {1, 2}; tune_params_keys puts by first.
std::string header(const std::string& objective = "time") {
  return R"({"device_name": "Test GPU", "kernel_name": "k", "problem_size": [64, 64],
"tune_params_keys": ["by", "bx"], "tune_params": {"bx": [16, 32, 64], "by": [1, 2]},
"objective": ")" +
         objective + R"(", "cache": {
)";
}

std::string record(int by, int bx, const std::string& fields) {
  return "\"" + std::to_string(by) + "," + std::to_string(bx) +
         "\": {\"by\": " + std::to_string(by) + ", \"bx\": " + std::to_string(bx) + ", " + fields +
         "}";
}

// Six records, one per configuration; the failures use the three encodings.
std::string six_records() {
  return record(
             1, 16,
             R"("time": 2.0, "times": [1.0, 2.0, 3.0], "compile_time": 120.5, "benchmark_time": 9.5)") +
         ",\n" + record(1, 32, R"("time": 1.5, "times": [1.5, 1.5])") + ",\n" +
         record(1, 64, R"("time": 1e20, "compile_time": 3.0)") + ",\n" +
         record(2, 16, R"("time": "CompilationFailedConfig")") + ",\n" +
         record(2, 32, R"("time": 0.7, "__error__": "RuntimeFailedConfig")") + ",\n" +
         record(2, 64, R"("time": "InvalidConfig")");
}

const Outcome& find(const KernelTunerCache& c, const std::string& label) {
  for (const auto& o : c.records)
    if (o.label == label) return o;
  throw std::runtime_error("no record " + label);
}

std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const CacheFileError& e) {
    return e.what();
  }
  return "no CacheFileError";
}

TEST(KernelTunerCache, ReadsSpaceInKeyOrderAndRecords) {
  const auto path = write_text("plain.json", header() + six_records() + "}}\n");
  const KernelTunerCache c = read_kernel_tuner_cache(path);
  EXPECT_EQ(c.kernel_name, "k");
  EXPECT_EQ(c.device_name, "Test GPU");
  EXPECT_EQ(c.objective, "time");
  EXPECT_EQ(c.problem_size, json::parse("[64, 64]"));
  ASSERT_EQ(c.space.names(), (std::vector<std::string>{"by", "bx"}));
  EXPECT_EQ(c.space.parameters()[1].values[2].text, "64");
  ASSERT_EQ(c.records.size(), 6u);
  const Outcome& ok = find(c, "by=1,bx=16");
  EXPECT_EQ(ok.status, Status::ok);
  EXPECT_EQ(ok.config, (Config{0, 0}));
  EXPECT_DOUBLE_EQ(*ok.objective, 2.0);
  ASSERT_TRUE(ok.timing.has_value());
  EXPECT_EQ(ok.timing->samples, 3);
  EXPECT_DOUBLE_EQ(ok.timing->mean_ms, 2.0);
  EXPECT_DOUBLE_EQ(ok.timing->median_ms, 2.0);
  EXPECT_DOUBLE_EQ(ok.timing->stdev_ms, 1.0);
  EXPECT_DOUBLE_EQ(ok.stage_ms.at("compile"), 120.5);
  EXPECT_DOUBLE_EQ(ok.stage_ms.at("run"), 9.5);
}

TEST(KernelTunerCache, MapsTheThreeFailureEncodings) {
  const KernelTunerCache c =
      read_kernel_tuner_cache(write_text("fail.json", header() + six_records() + "}}"));
  const Outcome& marker = find(c, "by=1,bx=64");
  EXPECT_EQ(marker.status, Status::crash);
  EXPECT_FALSE(marker.objective.has_value());
  EXPECT_NE(marker.message.find("1e+20"), std::string::npos) << marker.message;
  EXPECT_DOUBLE_EQ(marker.stage_ms.at("compile"), 3.0);
  const Outcome& compile = find(c, "by=2,bx=16");
  EXPECT_EQ(compile.status, Status::compile_error);
  EXPECT_NE(compile.message.find("CompilationFailedConfig"), std::string::npos);
  const Outcome& launch = find(c, "by=2,bx=32");  // __error__ wins over a numeric time
  EXPECT_EQ(launch.status, Status::launch_error);
  EXPECT_FALSE(launch.objective.has_value());
  EXPECT_NE(launch.message.find("RuntimeFailedConfig"), std::string::npos);
  EXPECT_EQ(find(c, "by=2,bx=64").status, Status::invalid);
}

TEST(KernelTunerCache, NonFiniteAndHugeObjectivesAreFailures) {
  const std::string text =
      header() + record(1, 16, R"("time": NaN)") + ",\n" +
      record(1, 32, R"("time": Infinity, "times": [NaN, 1.0])") + ",\n" +
      record(1, 64, R"("time": 2e19)") + ",\n" +
      record(2, 16, R"("time": "ErrorConfig", "note": "NaN in a string stays")") + ",\n" +
      record(2, 32, R"("time": 9.9e18)") + "}}";
  const KernelTunerCache c = read_kernel_tuner_cache(write_text("nonfinite.json", text));
  for (const char* label : {"by=1,bx=16", "by=1,bx=32", "by=1,bx=64", "by=2,bx=16"}) {
    EXPECT_EQ(find(c, label).status, Status::crash) << label;
    EXPECT_FALSE(find(c, label).objective.has_value()) << label;
  }
  EXPECT_NE(find(c, "by=1,bx=16").message.find("NaN"), std::string::npos);
  EXPECT_NE(find(c, "by=2,bx=16").message.find("ErrorConfig"), std::string::npos);
  EXPECT_EQ(find(c, "by=2,bx=32").status, Status::ok);  // below 1e19: a (slow) measurement
}

TEST(KernelTunerCache, CompilationFailureNamingResourcesIsResourceLimit) {
  const std::string text =
      header() +
      record(
          1, 16,
          R"j("time": "CompilationFailedConfig", "error_message": "ptxas error   : Entry function 'k' uses too much shared data (0x10000 bytes, 0xc000 max)")j") +
      ",\n" +
      record(1, 32, R"("__error__": "CompilationFailedConfig", "message": "Too many REGISTERS")") +
      ",\n" +
      record(1, 64, R"("time": "CompilationFailedConfig", "error_message": "syntax error")") +
      ",\n" +
      record(
          2, 16,
          R"j("time": "RuntimeFailedConfig", "error_message": "too many resources (registers)")j") +
      "}}";
  const KernelTunerCache c = read_kernel_tuner_cache(write_text("resources.json", text));
  EXPECT_EQ(find(c, "by=1,bx=16").status, Status::resource_limit);
  EXPECT_EQ(find(c, "by=1,bx=32").status, Status::resource_limit);
  EXPECT_EQ(find(c, "by=1,bx=64").status, Status::compile_error);
  EXPECT_EQ(find(c, "by=2,bx=16").status, Status::launch_error);  // a launch failure stays one
}

TEST(KernelTunerCache, ReadsTheTruncatedForm) {
  const KernelTunerCache c =
      read_kernel_tuner_cache(write_text("cut.json", header() + six_records() + ",\n"));
  EXPECT_EQ(c.records.size(), 6u);
  EXPECT_EQ(find(c, "by=1,bx=32").status, Status::ok);
  const KernelTunerCache empty = read_kernel_tuner_cache(write_text("open.json", header()));
  EXPECT_TRUE(empty.records.empty());
  EXPECT_EQ(empty.space.dimension(), 2u);
}

TEST(KernelTunerCache, ReadsGzipByContentNotName) {
  const auto plain = write_text("zipped.json", header() + six_records() + ",\n");
  std::filesystem::remove(plain.string() + ".gz");
  const ProcessResult r = run_process({"gzip", "-k", plain.string()});
  ASSERT_TRUE(r.ok()) << r.describe() << r.err;
  const auto renamed =
      plain.parent_path() / "zipped.cache";  // no .gz suffix: detected by magic bytes
  std::filesystem::rename(plain.string() + ".gz", renamed);
  const KernelTunerCache z = read_kernel_tuner_cache(renamed);
  const KernelTunerCache p = read_kernel_tuner_cache(plain);
  ASSERT_EQ(z.records.size(), p.records.size());
  for (std::size_t i = 0; i < z.records.size(); ++i) {
    EXPECT_EQ(z.records[i].label, p.records[i].label);
    EXPECT_EQ(z.records[i].status, p.records[i].status);
    EXPECT_EQ(z.records[i].objective, p.records[i].objective);
  }
}

TEST(KernelTunerCache, FallsBackToTheKeyWithoutParameterFields) {
  const std::string text = header() + R"("2,64": {"time": 3.25})" + "}}";
  const KernelTunerCache c = read_kernel_tuner_cache(write_text("keyonly.json", text));
  ASSERT_EQ(c.records.size(), 1u);
  EXPECT_EQ(c.records[0].label, "by=2,bx=64");
  EXPECT_DOUBLE_EQ(*c.records[0].objective, 3.25);
}

TEST(KernelTunerCache, ThroughputObjectiveStillReplaysTime) {
  const std::string text = header("GFLOP/s") + record(1, 16, R"("time": 2.0, "GFLOP/s": 50.0)") +
                           ",\n" +
                           record(1, 32, R"("time": 4.0, "GFLOP/s": "RuntimeFailedConfig")") + "}}";
  const KernelTunerCache c = read_kernel_tuner_cache(write_text("gflops.json", text));
  EXPECT_EQ(c.objective, "GFLOP/s");
  EXPECT_DOUBLE_EQ(*find(c, "by=1,bx=16").objective, 2.0);
  EXPECT_DOUBLE_EQ(find(c, "by=1,bx=16").extra.at("GFLOP/s").get<double>(), 50.0);
  EXPECT_EQ(find(c, "by=1,bx=32").status, Status::launch_error);
}

TEST(KernelTunerCache, ConstraintsInPythonAndProductSyntaxAgree) {
  const auto path = write_text("constrained.json", header() + six_records() + "}}");
  const KernelTunerCache py = read_kernel_tuner_cache(path, {"32 <= bx*by <= 64 and not bx == 64"});
  const KernelTunerCache cc =
      read_kernel_tuner_cache(path, {"bx*by >= 32 && bx*by <= 64 && !(bx == 64)"});
  EXPECT_EQ(py.records_outside_constraints, 3u);  // 1x16, 1x64, 2x64 violate
  EXPECT_EQ(cc.records_outside_constraints, 3u);
  EXPECT_EQ(py.space.enumerate_valid(), cc.space.enumerate_valid());
  EXPECT_EQ(py.space.enumerate_valid(), (std::vector<Config>{{0, 1}, {1, 0}, {1, 1}}));
}

TEST(KernelTunerCache, BadFilesNameTheFileAndTheProblem) {
  EXPECT_NE(message_of([] {
              read_kernel_tuner_cache("/nonexistent/x.json.gz");
            }).find("/nonexistent/x.json.gz: no such file"),
            std::string::npos);
  const auto garbage = write_text("garbage.json", "this is not json");
  EXPECT_NE(
      message_of([&] { read_kernel_tuner_cache(garbage); }).find("garbage.json: is not valid JSON"),
      std::string::npos);
  const auto mid = write_text("mid.json", header() + six_records().substr(0, 120));
  EXPECT_NE(message_of([&] { read_kernel_tuner_cache(mid); }).find("cut inside a record"),
            std::string::npos);
  const auto no_params = write_text("noparams.json", R"({"cache": {}})");
  EXPECT_NE(message_of([&] {
              read_kernel_tuner_cache(no_params);
            }).find("\"tune_params_keys\" is missing"),
            std::string::npos);
  const auto foreign =
      write_text("foreign.json", header() + record(1, 48, R"("time": 1.0)") + "}}");
  const std::string m = message_of([&] { read_kernel_tuner_cache(foreign); });
  EXPECT_NE(m.find("foreign.json: record \"1,48\": bx = 48 is not among its tune_params values"),
            std::string::npos)
      << m;
  const auto no_time =
      write_text("notime.json", header() + record(1, 16, R"("times": [1.0])") + "}}");
  EXPECT_NE(message_of([&] {
              read_kernel_tuner_cache(no_time);
            }).find("record \"1,16\" has no numeric \"time\""),
            std::string::npos);
  const auto ok = write_text("ok.json", header() + six_records() + "}}");
  const std::string c = message_of([&] { read_kernel_tuner_cache(ok, {"block_size_x <= 4"}); });
  EXPECT_NE(c.find("ok.json: constraint"), std::string::npos) << c;
  EXPECT_NE(c.find("block_size_x"), std::string::npos) << c;
}

TEST(KernelTunerCache, DuplicateConfigurationsAreRefused) {
  const std::string text = header() + record(1, 16, R"("time": 1.0)") +
                           R"(, "dup": {"by": 1, "bx": 16, "time": 2.0})" + "}}";
  const std::string m = message_of([&] { read_kernel_tuner_cache(write_text("dup.json", text)); });
  EXPECT_NE(m.find("are the same configuration"), std::string::npos) << m;
}

}  // namespace
}  // namespace adaexplore
