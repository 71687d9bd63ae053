#include "store/results.hpp"

#include <csignal>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include <sys/resource.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "util/file_lock.hpp"
#include "evaluate/render.hpp"
#include "test_support.hpp"
#include "util/hash.hpp"
#include "util/files.hpp"

namespace adaexplore {
namespace {

namespace fs = std::filesystem;

Space space() {
  Parameter tile{"TILE", {Value::from_number(16), Value::from_number(32), Value::from_number(64)}};
  Parameter layout{"LAYOUT", {Value::from_text("row"), Value::from_text("col")}};
  Parameter scale{"SCALE", {Value::from_number(0.1), Value::from_number(1.5)}};
  return Space({tile, layout, scale}, {});
}

ResultsHeader header() {
  ResultsHeader h;
  h.kernel = "gemm";
  h.key = content_hash("everything that matters");
  h.key_parts = {{"spec", "abc"}, {"backend", "cuda"}};
  h.device = {{"name", "GPU"}, {"compute_capability", "9.0"}};
  h.strategy = "ga";
  h.seed = 3;
  h.started = "2024-05-01T12:00:00Z";
  return h;
}

Outcome ok(const Config& c, double ms) {
  Outcome o;
  o.config = c;
  o.status = Status::ok;
  o.objective = ms;
  o.timing = Timing{ms, ms * 1.01, ms * 0.99, ms * 1.1, 0.003, 25};
  o.resources = {{"_Z4gemmPf", 64, 8192, 16, 0, 4, 356}};
  o.stage_ms = {{"compile", 812.5}, {"run", 40.25}};
  o.extra = {{"gb_per_s", 1234.5}};
  return o;
}

Outcome failed(const Config& c, Status s, const std::string& message) {
  Outcome o;
  o.config = c;
  o.status = s;
  o.message = message;
  o.exit_code = 2;
  return o;
}

class Results : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = test::fresh_test_directory("results");
    path_ = dir_ / "sub" / "results.jsonl";
  }
  void TearDown() override { fs::remove_all(dir_); }

  void write(const std::vector<Outcome>& outcomes, std::size_t first_index = 0) {
    ResultsWriter w(path_, header(), space_, first_index);
    for (const auto& o : outcomes) w.append(o);
  }
  std::vector<std::string> lines() const {
    std::istringstream in(read_file(path_));
    std::vector<std::string> out;
    for (std::string l; std::getline(in, l);) out.push_back(l);
    return out;
  }
  std::string read_error() const {
    try {
      read_results(path_, space_);
    } catch (const ResultsError& e) {
      return e.what();
    }
    return "(no error)";
  }

  fs::path dir_, path_;
  Space space_ = space();
};

TEST_F(Results, WriteThenReadRoundTrip) {
  const std::vector<Outcome> written = {ok({0, 0, 0}, 1.25), failed({1, 1, 1}, Status::compile_error, "error: x\nline 2"),
                                        ok({2, 1, 0}, 0.0625)};
  write(written);
  const ResultsFile f = read_results(path_, space_);
  EXPECT_TRUE(f.warnings.empty());
  EXPECT_EQ(f.header.kernel, "gemm");
  EXPECT_EQ(f.header.key, header().key);
  EXPECT_EQ(f.header.key_parts, header().key_parts);
  EXPECT_EQ(f.header.device, header().device);
  EXPECT_EQ(f.header.strategy, "ga");
  EXPECT_EQ(f.header.seed, 3u);
  EXPECT_EQ(f.header.started, "2024-05-01T12:00:00Z");
  ASSERT_EQ(f.outcomes.size(), 3u);
  for (std::size_t i = 0; i < written.size(); ++i) {
    const Outcome &a = written[i], &b = f.outcomes[i];
    EXPECT_EQ(b.config, a.config);
    EXPECT_EQ(b.label, space_.label(a.config));
    EXPECT_EQ(b.status, a.status);
    EXPECT_EQ(b.objective, a.objective);
    EXPECT_EQ(b.message, a.message);
    EXPECT_EQ(b.exit_code, a.exit_code);
    EXPECT_EQ(b.stage_ms, a.stage_ms);
    EXPECT_EQ(b.extra, a.extra);
    ASSERT_EQ(b.timing.has_value(), a.timing.has_value());
    if (a.timing) {
      EXPECT_EQ(b.timing->mean_ms, a.timing->mean_ms);
      EXPECT_EQ(b.timing->stdev_ms, a.timing->stdev_ms);
      EXPECT_EQ(b.timing->samples, a.timing->samples);
    }
    ASSERT_EQ(b.resources.size(), a.resources.size());
    if (!a.resources.empty()) {
      EXPECT_EQ(b.resources[0].kernel, "_Z4gemmPf");
      EXPECT_EQ(b.resources[0].registers, 64);
      EXPECT_EQ(b.resources[0].shared_bytes, 8192);
      EXPECT_EQ(b.resources[0].spill_load_bytes, 4);
    }
  }
  const auto l = lines();
  ASSERT_EQ(l.size(), 4u);
  EXPECT_EQ(nlohmann::json::parse(l[0])["format"], "adaexplore-results");
  EXPECT_EQ(nlohmann::json::parse(l[1])["index"], 0);
  EXPECT_EQ(nlohmann::json::parse(l[3])["index"], 2);
}

// A disk that fills while a record is appended (RLIMIT_FSIZE with SIGXFSZ ignored: write() fails
// as on a full disk): the error names the file and the system's reason, the half-written line is
// cut off, and the records before it stay readable.
TEST_F(Results, AnAppendThatFailsNamesTheReasonAndLeavesNoHalfLine) {
  write({ok({0, 0, 0}, 1.25)});
  const std::uintmax_t before = fs::file_size(path_);
  EXPECT_EXIT(
      {
        std::signal(SIGXFSZ, SIG_IGN);
        struct rlimit limit;
        limit.rlim_cur = limit.rlim_max = before + 100;
        ::setrlimit(RLIMIT_FSIZE, &limit);
        ResultsWriter w(path_, header(), space_);
        Outcome big = failed({1, 1, 1}, Status::compile_error, std::string(4000, 'e'));
        try {
          w.append(big);
        } catch (const EnvironmentError& e) {  // the environment (exit 5)
          const std::string what = e.what();
          const bool named = what.find("cannot write " + path_.string() + ": File too large") == 0;
          std::_Exit(named && fs::file_size(path_) == before ? 0 : 2);
        }
        std::_Exit(1);
      },
      ::testing::ExitedWithCode(0), "");
  EXPECT_EQ(fs::file_size(path_), before);
  EXPECT_EQ(read_results(path_, space_).outcomes.size(), 1u);
}

TEST_F(Results, AppendingToAnExistingFileKeepsOneHeaderAndContinuesTheIndex) {
  write({ok({0, 0, 0}, 1.0)});
  write({ok({1, 0, 0}, 2.0)}, 1);
  const auto l = lines();
  ASSERT_EQ(l.size(), 3u);
  EXPECT_EQ(nlohmann::json::parse(l[2])["index"], 1);
  EXPECT_EQ(read_results(path_, space_).outcomes.size(), 2u);
}

TEST_F(Results, HalfWrittenLastLineIsDroppedWithAWarningAndTheNextAppendStartsANewLine) {
  write({ok({0, 0, 0}, 1.0), ok({1, 0, 0}, 2.0)});
  std::ofstream(path_, std::ios::app) << R"({"index": 2, "label": "TILE=64,LAY)";
  const ResultsFile f = read_results(path_, space_);
  EXPECT_EQ(f.outcomes.size(), 2u);
  ASSERT_EQ(f.warnings.size(), 1u);
  EXPECT_NE(f.warnings[0].find(path_.string() + ":4: dropped a half-written last record"), std::string::npos)
      << f.warnings[0];
  write({ok({2, 1, 1}, 3.0)}, 2);
  const auto l = lines();
  ASSERT_EQ(l.size(), 4u);
  for (const auto& line : l) EXPECT_NO_THROW(nlohmann::json::parse(line)) << line;
  const ResultsFile again = read_results(path_, space_);
  EXPECT_TRUE(again.warnings.empty());
  ASSERT_EQ(again.outcomes.size(), 3u);
  EXPECT_EQ(again.outcomes[2].config, (Config{2, 1, 1}));
}

TEST_F(Results, CompleteLastRecordWithoutNewlineIsKeptByReaderAndWriterAlike) {
  write({ok({0, 0, 0}, 1.0), ok({1, 0, 0}, 2.0)});
  std::string content = read_file(path_);
  content.pop_back();  // killed between the record and its '\n'
  std::ofstream(path_, std::ios::binary | std::ios::trunc) << content;
  EXPECT_EQ(read_results(path_, space_).outcomes.size(), 2u);
  write({ok({2, 0, 0}, 3.0)}, 2);
  const ResultsFile f = read_results(path_, space_);
  EXPECT_TRUE(f.warnings.empty());
  ASSERT_EQ(f.outcomes.size(), 3u);
  EXPECT_EQ(f.outcomes[1].config, (Config{1, 0, 0}));
  EXPECT_EQ(f.outcomes[2].config, (Config{2, 0, 0}));
}

TEST_F(Results, CorruptMiddleLineIsAnErrorNamingFileAndLine) {
  write({ok({0, 0, 0}, 1.0), ok({1, 0, 0}, 2.0), ok({2, 0, 0}, 3.0)});
  auto l = lines();
  l[2] = l[2].substr(0, 20);
  std::ofstream out(path_, std::ios::binary | std::ios::trunc);
  for (const auto& line : l) out << line << '\n';
  out.close();
  const std::string e = read_error();
  EXPECT_NE(e.find(path_.string() + ":3: not valid JSON"), std::string::npos) << e;
}

TEST_F(Results, RecordOutsideTheSpaceIsAnErrorNamingFileAndLine) {
  write({ok({0, 0, 0}, 1.0)});
  std::ofstream(path_, std::ios::app)
      << R"({"index": 1, "config": {"TILE": 48, "LAYOUT": "row", "SCALE": 0.1}, "status": "ok"})" << '\n';
  const std::string e = read_error();
  EXPECT_NE(e.find(path_.string() + ":3: bad record"), std::string::npos) << e;
  EXPECT_NE(e.find("value 48"), std::string::npos) << e;
}

TEST_F(Results, ForeignJsonFileIsRefused) {
  fs::create_directories(path_.parent_path());
  std::ofstream(path_) << R"({"name": "gemm", "backend": "cuda"})" << '\n';
  const std::string e = read_error();
  EXPECT_NE(e.find(path_.string() + ":1: not an AdaExplore results file"), std::string::npos) << e;
  std::ofstream(path_, std::ios::trunc) << "\n"
                                    << R"({"index": 0, "config": {"TILE": 16, "LAYOUT": "row", "SCALE": 0.1}, "status": "ok"})" << '\n';
  EXPECT_NE(read_error(), "(no error)");  // a blank first line does not skip the header check
  std::ofstream(path_, std::ios::trunc) << R"({"format": "adaexplore-results", "version": 99})" << '\n';
  EXPECT_NE(read_error().find("version 99"), std::string::npos) << read_error();
  std::ofstream(path_, std::ios::trunc) << "";
  EXPECT_NE(read_error().find("empty results file"), std::string::npos) << read_error();
}

TEST_F(Results, CorruptFileErrorSaysWhatIsWrongAndTheCommandThatMovesItAside) {
  write({ok({0, 0, 0}, 1.0), ok({1, 0, 0}, 2.0)});
  auto l = lines();
  l[1] = "{\"index\": 0, \"config\": {\"TILE\": 16}";  // a cut line in the middle: not the last line
  std::ofstream out(path_, std::ios::binary | std::ios::trunc);
  for (const auto& line : l) out << line << '\n';
  out.close();
  const std::string e = read_error();
  EXPECT_NE(e.find(path_.string() + ":2: not valid JSON"), std::string::npos) << e;
  EXPECT_NE(e.find("never repairs or overwrites"), std::string::npos) << e;
  EXPECT_NE(e.find("mv '" + path_.string() + "' '" + path_.string() + ".corrupt-"), std::string::npos) << e;
  // The writer refuses it too, and leaves it as it was.
  const std::string before = read_file(path_);
  EXPECT_THROW(ResultsWriter(path_, header(), space_), ResultsError);
  EXPECT_EQ(read_file(path_), before);
}

TEST_F(Results, RecordWithoutConfigOrWithAnUnknownStatusIsABadRecord) {
  write({ok({0, 0, 0}, 1.0)});
  std::ofstream(path_, std::ios::app) << R"({"index": 1, "status": "ok"})" << '\n';
  EXPECT_NE(read_error().find(path_.string() + ":3: bad record (a record needs a \"config\" object)"), std::string::npos)
      << read_error();
  fs::remove(path_);
  write({ok({0, 0, 0}, 1.0)});
  std::ofstream(path_, std::ios::app) << R"({"config": {"TILE": 16, "LAYOUT": "row", "SCALE": 0.1}, "status": "fast"})" << '\n';
  EXPECT_NE(read_error().find(":3: bad record (unknown status 'fast')"), std::string::npos) << read_error();
}

TEST_F(Results, WriterRefusesAFileOfAnotherKeyQuotingBoth) {
  write({ok({0, 0, 0}, 1.0)});
  ResultsHeader other = header();
  other.key = content_hash("something else");
  try {
    ResultsWriter w(path_, other, space_);
    FAIL() << "expected an error";
  } catch (const ResultsError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find(path_.string() + ":1: holds results of key " + header().key), std::string::npos) << m;
    EXPECT_NE(m.find("this tuning has key " + other.key), std::string::npos) << m;
  }
}

TEST_F(Results, ReadersKeepTheFirstRecordOfAConfiguration) {
  write({ok({0, 0, 0}, 1.0), ok({1, 0, 0}, 2.0), ok({0, 0, 0}, 0.5), failed({1, 0, 0}, Status::crash, "x")});
  const ResultsFile f = read_results(path_, space_);
  ASSERT_EQ(f.outcomes.size(), 2u);
  EXPECT_EQ(f.duplicates, 2u);
  EXPECT_EQ(*f.outcomes[0].objective, 1.0);
  EXPECT_EQ(f.outcomes[1].status, Status::ok);
  ResultsWriter w(path_, header(), space_);
  const ResultsFile again = w.read_existing();
  EXPECT_EQ(again.outcomes.size(), 2u);
  EXPECT_EQ(again.duplicates, 2u);
  EXPECT_EQ(again.header.started, "2024-05-01T12:00:00Z");
  EXPECT_EQ(again.header.host, "");  // the test's header names none
}

TEST_F(Results, WritersSharingAFileSeeEachOthersRecords) {
  ResultsWriter a(path_, header(), space_), b(path_, header(), space_);
  EXPECT_TRUE(a.read_existing().outcomes.empty());
  b.read_existing();
  a.append(ok({0, 0, 0}, 1.0));
  EXPECT_TRUE(a.take_foreign().empty());  // its own record
  b.append(ok({1, 0, 0}, 2.0));
  auto seen_by_b = b.take_foreign();
  ASSERT_EQ(seen_by_b.size(), 1u);
  EXPECT_EQ(seen_by_b[0].config, (Config{0, 0, 0}));
  a.append(ok({2, 0, 0}, 3.0));
  auto seen_by_a = a.take_foreign();
  ASSERT_EQ(seen_by_a.size(), 1u);
  EXPECT_EQ(seen_by_a[0].config, (Config{1, 0, 0}));
  const auto l = lines();
  ASSERT_EQ(l.size(), 4u);
  for (std::size_t i = 1; i < l.size(); ++i) {
    const auto j = nlohmann::json::parse(l[i]);
    EXPECT_EQ(j["index"], i - 1);
    EXPECT_EQ(j["origin"]["pid"], static_cast<long>(::getpid()));
  }
  // Moved aside by another process (--retune): the next append starts a new file with its header.
  fs::rename(path_, path_.string() + ".retune-x");
  a.append(ok({0, 1, 0}, 4.0));
  const auto fresh = lines();
  ASSERT_EQ(fresh.size(), 2u);
  EXPECT_EQ(nlohmann::json::parse(fresh[0])["format"], "adaexplore-results");
  EXPECT_EQ(nlohmann::json::parse(fresh[1])["index"], 0);
}

TEST_F(Results, HalfWrittenLineOfAKilledWriterIsCutByTheNextAppendWithAWarning) {
  ResultsWriter w(path_, header(), space_);
  w.append(ok({0, 0, 0}, 1.0));
  std::ofstream(path_, std::ios::app) << R"({"index": 1, "config": {"TILE")";  // another process killed mid-line
  w.append(ok({1, 0, 0}, 2.0));
  const auto warnings = w.take_warnings();
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find(path_.string() + ":3: dropped a half-written last record"), std::string::npos) << warnings[0];
  const ResultsFile f = read_results(path_, space_);
  EXPECT_TRUE(f.warnings.empty());
  ASSERT_EQ(f.outcomes.size(), 2u);
  EXPECT_EQ(nlohmann::json::parse(lines()[2])["index"], 1);
}

// A complete last line without its '\n' that is a bad record: the writer's error leaves the
// file byte for byte as it was (the '\n' is added only to a record that was taken).
TEST_F(Results, BadLastRecordWithoutNewlineIsAnErrorThatLeavesTheFileAsItWas) {
  write({ok({0, 0, 0}, 1.0)});
  std::ofstream(path_, std::ios::binary | std::ios::app) << R"({"index": 1, "config": {"NOPE": 3}, "status": "ok"})";
  const std::string before = read_file(path_);
  try {
    ResultsWriter w(path_, header(), space_);
    ADD_FAILURE() << "no error for a record outside the space";
  } catch (const ResultsError& e) {
    EXPECT_NE(std::string(e.what()).find(path_.string() + ":3: bad record"), std::string::npos) << e.what();
  }
  EXPECT_EQ(read_file(path_), before);
}

// Pure readers create nothing: no lock file beside committed data, no folders for a mistyped path.
TEST_F(Results, ReadingCreatesNoLockFileAndAMissingFileNothingAtAll) {
  write({ok({0, 0, 0}, 1.0)});
  const fs::path fresh = dir_ / "committed" / "results.jsonl";
  fs::create_directories(fresh.parent_path());
  fs::copy_file(path_, fresh);
  EXPECT_EQ(read_results(fresh, space_).outcomes.size(), 1u);
  EXPECT_EQ(read_raw_results(fresh).records.size(), 1u);
  EXPECT_FALSE(fs::exists(lock_path_for(fresh)));
  EXPECT_EQ(std::distance(fs::directory_iterator(fresh.parent_path()), fs::directory_iterator()), 1);
  // A writer's lock file is used, and left as it is.
  EXPECT_TRUE(fs::exists(lock_path_for(path_)));
  EXPECT_EQ(read_results(path_, space_).outcomes.size(), 1u);

  const fs::path typo = dir_ / "typo" / "dir" / "results.jsonl";
  try {
    read_results(typo, space_);
    ADD_FAILURE() << "no error for a missing file";
  } catch (const ResultsError& e) {
    EXPECT_NE(std::string(e.what()).find(typo.string() + ": no such results file"), std::string::npos) << e.what();
  }
  EXPECT_THROW(read_raw_results(typo), ResultsError);
  EXPECT_FALSE(fs::exists(dir_ / "typo"));
}

TEST_F(Results, HeaderKeepsFieldsItDoesNotKnow) {
  ResultsHeader h = header();
  h.other = {{"future_field", 7}};
  h.merged_from = nlohmann::json::array({{{"path", "/x"}, {"host", "b"}}});
  const ResultsHeader back = header_from_json(header_to_json(h), path_, 1);
  EXPECT_EQ(back.other, h.other);
  EXPECT_EQ(back.merged_from, h.merged_from);
  EXPECT_EQ(back.key, h.key);
}

TEST(ContentHash, IsStableAndDiscriminating) {
  EXPECT_EQ(content_hash("abc"), content_hash("abc"));
  EXPECT_NE(content_hash("abc"), content_hash("abd"));
  EXPECT_EQ(content_hash("abc").size(), 32u);
  EXPECT_EQ(content_hash("abc").find_first_not_of("0123456789abcdef"), std::string::npos);
}

TEST(UtcNow, IsIso8601) {
  const std::string t = utc_now();
  ASSERT_EQ(t.size(), 20u) << t;
  EXPECT_EQ(t[4], '-');
  EXPECT_EQ(t[10], 'T');
  EXPECT_EQ(t[19], 'Z');
}

}  // namespace
}  // namespace adaexplore
