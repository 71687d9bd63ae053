#include "util/text.hpp"

#include <vector>

#include <gtest/gtest.h>

namespace adaexplore {
namespace {

TEST(ValidUtf8, ValidTextIsUnchanged) {
  for (const std::string& s : std::vector<std::string>{"", "plain ascii\n", "r\xc3\xa9serv\xc3\xa9", "\xe2\x80\x98quoted\xe2\x80\x99",
                              "\xf0\x9f\x98\x80 four bytes", std::string("nul\0inside", 10)}) {
    EXPECT_TRUE(is_valid_utf8(s)) << s;
    EXPECT_EQ(valid_utf8(s), s);
  }
}

// gcc echoing a Latin-1 comment (2026-12-05: json type_error 316 on every retry), and the other
// malformed forms: each bad byte becomes \xNN, the good ones around it stay.
TEST(ValidUtf8, EachBadByteBecomesItsHexEscape) {
  EXPECT_EQ(valid_utf8("r\xe9serv\xe9"), "r\\xe9serv\\xe9");                  // Latin-1
  EXPECT_EQ(valid_utf8("\x93quoted\x94"), "\\x93quoted\\x94");                // Windows-1252 quotes
  EXPECT_EQ(valid_utf8("cut \xe2\x80"), "cut \\xe2\\x80");                    // a sequence cut at the end
  EXPECT_EQ(valid_utf8("\xc0\xaf"), "\\xc0\\xaf");                            // overlong '/'
  EXPECT_EQ(valid_utf8("\xed\xa0\x80"), "\\xed\\xa0\\x80");                   // a surrogate
  EXPECT_EQ(valid_utf8("\xf4\x90\x80\x80"), "\\xf4\\x90\\x80\\x80");          // above U+10FFFF
  EXPECT_EQ(valid_utf8("\xff\xc3\xa9"), "\\xff\xc3\xa9");                     // a good sequence after a bad byte
  EXPECT_FALSE(is_valid_utf8("r\xe9"));
  EXPECT_NO_THROW(nlohmann::json(valid_utf8("r\xe9serv\xe9")).dump());
}

// A cut in the middle of a long message falls between sequences: a cut ‘quote’ was invalid text.
TEST(ValidUtf8, TruncateMiddleNeverCutsASequence) {
  std::string text;
  for (int i = 0; i < 200; ++i) text += "\xe2\x80\x98x";  // 4 bytes each
  for (std::size_t keep = 10; keep < 40; ++keep) {
    const std::string cut = truncate_middle(text, keep);
    EXPECT_TRUE(is_valid_utf8(cut)) << keep;
    EXPECT_NE(cut.find("characters cut"), std::string::npos);
  }
}

// The harness's record holds the benchmark's message byte for byte: made parseable, its string
// reads as valid_utf8 of those bytes.
TEST(ValidUtf8, JsonTextParsesToTheSameEscapes) {
  const std::string record = "{\"message\": \"donn\xe9" "es\"}";
  EXPECT_FALSE(nlohmann::json::accept(record));
  const nlohmann::json j = nlohmann::json::parse(valid_utf8_json_text(record));
  EXPECT_EQ(j["message"], valid_utf8("donn\xe9" "es"));
  EXPECT_EQ(j["message"], "donn\\xe9es");
}

TEST(ValidUtf8, JsonStringsAndKeysAreMadeValid) {
  nlohmann::json j = {{"message", "r\xe9serv\xe9"}, {"list", {"ok", "caf\xe9"}}, {"n", 3}};
  j["extra"]["k\xe9y"] = "v";
  const nlohmann::json v = valid_utf8_json(j);
  EXPECT_EQ(v["message"], "r\\xe9serv\\xe9");
  EXPECT_EQ(v["list"][1], "caf\\xe9");
  EXPECT_EQ(v["n"], 3);
  EXPECT_EQ(v["extra"]["k\\xe9y"], "v");
  EXPECT_THROW(j.dump(), nlohmann::json::type_error);
  EXPECT_NO_THROW(v.dump());
}

TEST(Counted, OneTakesTheSingularEveryOtherCountThePlural) {
  EXPECT_EQ(counted(1, "configuration"), "1 configuration");
  EXPECT_EQ(counted(0, "configuration"), "0 configurations");
  EXPECT_EQ(counted(3, "configuration"), "3 configurations");
  EXPECT_EQ(counted(1, "compute capability", "compute capabilities"), "1 compute capability");
  EXPECT_EQ(counted(2, "compute capability", "compute capabilities"), "2 compute capabilities");
}

}  // namespace
}  // namespace adaexplore
