#include "sluice/core/line_difference.h"

#include <gtest/gtest.h>

namespace sluice {
namespace {

TEST(LineDifferenceTest, NamesTheFirstDifferingLine) {
  EXPECT_FALSE(FirstLineDifference("a\nb\n", "a\nb\n").has_value());
  auto difference = FirstLineDifference("a\nb\nc", "a\nx\nc");
  ASSERT_TRUE(difference.has_value());
  EXPECT_EQ(difference->line, 2);
  EXPECT_EQ(difference->a, "b");
  EXPECT_EQ(difference->b, "x");
  difference = FirstLineDifference("a\nb", "a");  // one text is longer
  ASSERT_TRUE(difference.has_value());
  EXPECT_EQ(difference->line, 2);
  EXPECT_EQ(difference->a, "b");
  EXPECT_EQ(difference->b, "");
  difference = FirstLineDifference("a\n", "a");  // only a line break differs
  ASSERT_TRUE(difference.has_value());
  EXPECT_EQ(difference->a, "");
  EXPECT_EQ(difference->b, "");
}

}  // namespace
}  // namespace sluice
