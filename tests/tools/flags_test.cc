// Numeric flag values (tools/flags.h): whole text, finite, in range,
// integral where a count is needed; errors name the flag and the value.
#include "sluice/tools/flags.h"

#include <gtest/gtest.h>

namespace sluice::cli {
namespace {

CommandArgs With(const std::string& flag, const std::string& value) {
  return {.positional = {}, .flags = {{flag, value}}};
}

TEST(CountFlagTest, WholeNumbersInRange) {
  EXPECT_EQ(*CountFlag(CommandArgs{}, "--take", -1), -1);
  EXPECT_EQ(*CountFlag(With("--take", "12"), "--take", -1), 12);
  EXPECT_EQ(*CountFlag(With("--epochs", "1000"), "--epochs", 5, 1, 1000), 1000);
  for (const std::string& value :
       std::vector<std::string>{"-3", "1.5", "1e3", "12abc", "", " 1", "inf", "nan", "99999999999999999999"}) {
    const Result<int64_t> count = CountFlag(With("--take", value), "--take", -1);
    ASSERT_FALSE(count.ok()) << value;
    EXPECT_EQ(count.status().message(), "--take expects a count >= 0, got '" + value + "'");
  }
  EXPECT_EQ(CountFlag(With("--epochs", "4294967297"), "--epochs", 5, 1, 1000).status().message(),
            "--epochs expects a count from 1 to 1000, got '4294967297'");
}

TEST(DurationFlagTest, FiniteSecondsInRange) {
  EXPECT_EQ(*DurationFlag(CommandArgs{}, "--seconds", 5), 5);
  EXPECT_EQ(*DurationFlag(With("--seconds", "0.25"), "--seconds", 5), 0.25);
  EXPECT_EQ(*DurationFlag(With("--seconds", "1e6"), "--seconds", 5), 1e6);
  for (const std::string& value :
       std::vector<std::string>{"inf", "-inf", "nan", "infinity", "0", "-1", "1e400", "1e7", "5s", ""}) {
    const Result<double> seconds = DurationFlag(With("--seconds", value), "--seconds", 5);
    ASSERT_FALSE(seconds.ok()) << value;
    EXPECT_EQ(seconds.status().message(),
              "--seconds expects a duration in seconds, > 0 and at most 1000000, got '" + value + "'");
  }
}

}  // namespace
}  // namespace sluice::cli
