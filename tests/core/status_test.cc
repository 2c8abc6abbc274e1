#include "sluice/core/status.h"

#include <gtest/gtest.h>

namespace sluice {
namespace {

Result<int> Half(int x) {
  if (x % 2 != 0) return InvalidArgumentError("odd value ", x);
  return x / 2;
}

Result<int> Quarter(int x) {
  SLUICE_ASSIGN_OR_RETURN(int half, Half(x));
  SLUICE_ASSIGN_OR_RETURN(int quarter, Half(half));
  return quarter;
}

TEST(StatusTest, OkAndErrors) {
  EXPECT_TRUE(OkStatus().ok());
  EXPECT_EQ(OkStatus().ToString(), "OK");
  Status s = DataLossError("file ", "a.tfr", " at offset ", 42);
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kDataLoss);
  EXPECT_EQ(s.ToString(), "DataLoss: file a.tfr at offset 42");
  EXPECT_EQ(s.WithContext("tfrecord").message(), "tfrecord: file a.tfr at offset 42");
  EXPECT_TRUE(OkStatus().WithContext("x").ok());
}

TEST(StatusTest, ResultAndMacros) {
  EXPECT_EQ(*Quarter(8), 2);
  Result<int> bad = Quarter(6);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "odd value 3");
  auto check = [](int x) -> Status {
    SLUICE_RETURN_IF_ERROR(Half(x).status());
    return OkStatus();
  };
  EXPECT_TRUE(check(2).ok());
  EXPECT_EQ(check(3).code(), StatusCode::kInvalidArgument);
}

TEST(StatusDeathTest, ValueOfAnErrorAborts) {
  Result<int> bad = Half(1);
  EXPECT_DEATH((void)bad.value(), "value\\(\\) on an error Result");
}

}  // namespace
}  // namespace sluice
