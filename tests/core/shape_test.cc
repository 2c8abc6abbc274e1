#include "sluice/core/shape.h"

#include <gtest/gtest.h>

namespace sluice {
namespace {

TEST(ShapeTest, Basics) {
  Shape s{2, 3, 4};
  EXPECT_EQ(s.rank(), 3);
  EXPECT_EQ(s.NumElements(), 24);
  EXPECT_EQ(s.ToString(), "[2, 3, 4]");
  EXPECT_EQ(Shape{}.ToString(), "[]");
  EXPECT_EQ(Shape{}.NumElements(), 1);
  EXPECT_EQ(s.WithoutFirstDim(), (Shape{3, 4}));
  EXPECT_EQ(s.Prepended(5), (Shape{5, 2, 3, 4}));
  std::vector<int64_t> bad = {1, -2};
  EXPECT_FALSE(Shape::FromDims(bad).ok());
  std::vector<int64_t> too_long(kMaxRank + 1, 1);
  EXPECT_FALSE(Shape::FromDims(too_long).ok());
}

TEST(PartialShapeTest, CompatibilityAndMerging) {
  PartialShape a{-1, 3};
  EXPECT_EQ(a.ToString(), "[?, 3]");
  EXPECT_FALSE(a.IsFullyDefined());
  EXPECT_TRUE(a.IsCompatibleWith(Shape{7, 3}));
  EXPECT_FALSE(a.IsCompatibleWith(Shape{7, 4}));
  EXPECT_FALSE(a.IsCompatibleWith(Shape{3}));
  EXPECT_TRUE(PartialShape::UnknownRank().IsCompatibleWith(Shape{1, 2, 3}));
  EXPECT_EQ(PartialShape::UnknownRank().ToString(), "<unknown>");
  EXPECT_EQ(PartialShape{}.ToString(), "[]");  // like Shape{}, a scalar
  EXPECT_EQ(PartialShape{}, PartialShape(Shape{}));
  EXPECT_EQ(PartialShape({2, 3}).MostSpecificCommon(PartialShape({2, 4})), (PartialShape{2, -1}));
  EXPECT_EQ(PartialShape({2, 3}).MostSpecificCommon(PartialShape({2})), PartialShape::UnknownRank());
  EXPECT_EQ(a.Prepended(-1).ToString(), "[?, ?, 3]");
  EXPECT_EQ(PartialShape::UnknownRank().Prepended(4), PartialShape::UnknownRank());
}

// Dims from user input may multiply past int64: the checked count says so
// instead of wrapping.
TEST(ShapeTest, CheckedNumElementsRejectsOverflow) {
  constexpr int64_t k2To62 = int64_t{1} << 62;
  EXPECT_EQ(*Shape({2, 3, 4}).CheckedNumElements(), 24);
  EXPECT_EQ(*Shape({k2To62, 1}).CheckedNumElements(), k2To62);
  EXPECT_EQ(*Shape({k2To62, 4, 0}).CheckedNumElements(), 0);
  for (const Shape& shape : {Shape{k2To62, 2}, Shape{k2To62, 4}, Shape{3, 3, k2To62}, Shape{INT64_MAX, 2}}) {
    Result<int64_t> count = shape.CheckedNumElements();
    ASSERT_FALSE(count.ok()) << shape << " gave " << *count;
    EXPECT_EQ(count.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(count.status().message().find(shape.ToString()), std::string::npos) << count.status();
  }
}

}  // namespace
}  // namespace sluice
