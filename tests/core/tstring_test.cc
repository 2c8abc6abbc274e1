#include "sluice/core/tstring.h"

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <utility>

namespace sluice {
namespace {

TEST(TStringTest, EmptyOwnsAndViewsNothing) {
  const TString empty;
  EXPECT_TRUE(empty.empty());
  EXPECT_EQ(empty.size(), 0u);
  EXPECT_NE(empty.data(), nullptr);
  EXPECT_FALSE(empty.is_view());
  EXPECT_EQ(empty.owned_bytes(), 0u);
  EXPECT_EQ(empty, "");
  EXPECT_FALSE(TString::View("").is_view());
}

TEST(TStringTest, OwnedStringsCopyTheirBytes) {
  std::string source("a\0b", 3);
  const TString owned(source);
  source[0] = 'z';
  EXPECT_EQ(owned, std::string("a\0b", 3));
  EXPECT_FALSE(owned.is_view());
  EXPECT_EQ(owned.owned_bytes(), 3u);
  EXPECT_NE(owned.data(), source.data());
}

TEST(TStringTest, ViewsShareTheBytesTheyView) {
  std::string source = "view me";
  const TString view = TString::View(source);
  EXPECT_TRUE(view.is_view());
  EXPECT_EQ(view.data(), source.data());
  EXPECT_EQ(view.owned_bytes(), 0u);
  source[0] = 'V';
  EXPECT_EQ(view, "View me");
}

// A copied view owns its copy, so it never dangles; a moved one stays a
// view, and the moved-from string is empty.
TEST(TStringTest, CopiesOwnAndMovesKeep) {
  std::string source = "bytes";
  TString view = TString::View(source);
  TString copy = view;
  EXPECT_FALSE(copy.is_view());
  EXPECT_NE(copy.data(), source.data());
  TString assigned;
  assigned = view;
  EXPECT_FALSE(assigned.is_view());
  EXPECT_EQ(assigned, "bytes");

  TString moved = std::move(view);
  EXPECT_TRUE(moved.is_view());
  EXPECT_EQ(moved.data(), source.data());
  EXPECT_TRUE(view.empty());  // NOLINT(bugprone-use-after-move): specified
  TString owner("owned");
  const char* bytes = owner.data();
  TString taken;
  taken = std::move(owner);
  EXPECT_EQ(taken.data(), bytes);
  EXPECT_EQ(taken.owned_bytes(), 5u);
  source.clear();
  EXPECT_EQ(copy, "bytes");
}

TEST(TStringTest, AssigningItsOwnBytesIsSafe) {
  TString s("abcdef");
  s = std::string_view(s).substr(2);
  EXPECT_EQ(s, "cdef");
  s = s;  // NOLINT: self-assignment is a no-op
  EXPECT_EQ(s, "cdef");
  s = std::string_view();
  EXPECT_TRUE(s.empty());
}

TEST(TStringTest, ComparesAndPrintsAsBytes) {
  const TString a("apple"), b("banana");
  EXPECT_LT(a, b);
  EXPECT_EQ(a, TString::View("apple"));
  EXPECT_EQ(a, std::string("apple"));
  EXPECT_NE(a, "apples");
  EXPECT_EQ(std::string(a), "apple");
  std::ostringstream out;
  out << b;
  EXPECT_EQ(out.str(), "banana");
}

}  // namespace
}  // namespace sluice
