#include "sluice/core/json.h"

#include <gtest/gtest.h>

#include <cmath>

namespace sluice {
namespace {

TEST(JsonStringTest, Utf8PassesThroughAndSpecialCharactersAreEscaped) {
  EXPECT_EQ(JsonString("plain"), R"("plain")");
  EXPECT_EQ(JsonString("caf\xC3\xA9 \xE6\x97\xA5 \xF0\x9F\x98\x80"), "\"caf\xC3\xA9 \xE6\x97\xA5 \xF0\x9F\x98\x80\"");
  EXPECT_EQ(JsonString("a\"b\\c"), R"("a\"b\\c")");
  EXPECT_EQ(JsonString(std::string("n\n\0t\x7f", 5)), R"("n\u000a\u0000t\u007f")");
}

TEST(JsonStringTest, InvalidBytesAreLoneSurrogates) {
  struct Case {
    const char* name;
    std::string bytes;
    std::string json;
  };
  for (const Case& c : {
           Case{"stray continuation", "\x80", R"("\udc80")"},
           Case{"truncated sequence", "a\xC3", R"("a\udcc3")"},
           Case{"overlong slash", "\xC0\xAF", R"("\udcc0\udcaf")"},
           Case{"overlong three bytes", "\xE0\x80\xAF", R"("\udce0\udc80\udcaf")"},
           Case{"encoded surrogate", "\xED\xA0\x80", R"("\udced\udca0\udc80")"},
           Case{"above U+10FFFF", "\xF4\x90\x80\x80", R"("\udcf4\udc90\udc80\udc80")"},
           Case{"latin-1 byte then ascii", "\xFFok", R"("\udcffok")"},
       }) {
    EXPECT_EQ(JsonString(c.bytes), c.json) << c.name;
  }
}

TEST(JsonFloatTest, NonFiniteValuesAreStrings) {
  const auto text = [](double v) {
    std::string out;
    AppendJsonFloat(out, v);
    return out;
  };
  EXPECT_EQ(text(2.5), "2.5");
  EXPECT_EQ(text(std::nan("")), R"("nan")");
  EXPECT_EQ(text(HUGE_VAL), R"("inf")");
  EXPECT_EQ(text(-HUGE_VAL), R"("-inf")");
}

}  // namespace
}  // namespace sluice
