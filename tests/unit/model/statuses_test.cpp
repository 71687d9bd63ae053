// The one table of statuses (templates/adaexplore/statuses.hpp) and what is written from it or
// must agree with it: the tuner's Status (model/outcome.hpp), the harness's status:: names, the
// table of docs/outcomes.md (one row per status, in the table's order, and no other) and the
// report's page (tuner/report/report.js: a colour and words for each status, and no other).
#include <gtest/gtest.h>

#include <regex>
#include <set>
#include <string>
#include <vector>

#include "model/outcome.hpp"
#include "util/files.hpp"

namespace adaexplore {
namespace {

std::vector<std::string> table_names() {
  std::vector<std::string> names;
#define ADAEXPLORE_STATUS_TEST_NAME(name, from_benchmark) names.push_back(#name);
  ADAEXPLORE_STATUSES(ADAEXPLORE_STATUS_TEST_NAME)
#undef ADAEXPLORE_STATUS_TEST_NAME
  return names;
}

TEST(Statuses, TheTunerAndTheHarnessSpellTheTablesNames) {
  const std::vector<std::string> names = table_names();
  ASSERT_EQ(names.size(), std::size(kAllStatuses));
  for (std::size_t i = 0; i < names.size(); ++i) {
    EXPECT_EQ(to_string(kAllStatuses[i]), names[i]);
    EXPECT_EQ(status_from_string(names[i]), kAllStatuses[i]);
  }
  EXPECT_STREQ(status::launch_error, "launch_error");
  EXPECT_STREQ(status::wrong_result, "wrong_result");
  // What a benchmark's record may carry: the harness's failures and ok, nothing only the tuner decides.
  std::set<std::string> from;
  for (Status s : kAllStatuses)
    if (from_benchmark(s)) from.insert(to_string(s));
  EXPECT_EQ(from, (std::set<std::string>{"ok", "resource_limit", "launch_error", "crash", "wrong_result"}));
}

// docs/outcomes.md's table of statuses: one row per status, in the table's order, and no other.
TEST(Statuses, OutcomesDocumentHasOneRowPerStatusInOrder) {
  const std::string text = read_file(std::string(ADAEXPLORE_SOURCE_DIR) + "/docs/outcomes.md");
  const std::size_t start = text.find("| status | produced by |");
  ASSERT_NE(start, std::string::npos) << "docs/outcomes.md has no table \"| status | produced by |\"";
  const std::size_t end = text.find("\n\n", start);
  const std::string table = text.substr(start, end - start);
  std::vector<std::string> rows;
  const std::regex row(R"(\n\| `([a-z_]+)` \|)");
  for (std::sregex_iterator it(table.begin(), table.end(), row), last; it != last; ++it) rows.push_back((*it)[1]);
  EXPECT_EQ(rows, table_names()) << "docs/outcomes.md's table of statuses differs from templates/adaexplore/statuses.hpp";
}

// The report's page names and colours each status of the table, and no other.
TEST(Statuses, ReportPageHasColoursAndWordsForEachStatus) {
  const std::string js = read_file(std::string(ADAEXPLORE_SOURCE_DIR) + "/tuner/report/report.js");
  for (const char* object : {"STATUS_COLOURS", "STATUS_WORDS"}) {
    const std::size_t start = js.find(std::string("var ") + object + " = {");
    ASSERT_NE(start, std::string::npos) << "tuner/report/report.js has no " << object;
    const std::string body = js.substr(start, js.find("};", start) - start);
    std::set<std::string> keys;
    const std::regex key(R"(([a-z_]+): ")");
    for (std::sregex_iterator it(body.begin(), body.end(), key), last; it != last; ++it) keys.insert((*it)[1]);
    const std::vector<std::string> names = table_names();
    EXPECT_EQ(keys, std::set<std::string>(names.begin(), names.end())) << object;
  }
}

}  // namespace
}  // namespace adaexplore
