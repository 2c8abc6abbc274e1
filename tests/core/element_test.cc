#include "sluice/core/element.h"

#include <gtest/gtest.h>

#include <cmath>

namespace sluice {
namespace {

TEST(ElementSpecTest, CheckNamesTheComponent) {
  ElementSpec spec{{"x", DType::kFloat32, PartialShape{-1, 2}}, {"y", DType::kInt64, Shape{}}};
  EXPECT_EQ(spec.ToString(), "(x: float32[?, 2], y: int64[])");
  Element good{Tensor::Allocate(DType::kFloat32, Shape{5, 2}), Tensor::Scalar<int64_t>(1)};
  EXPECT_TRUE(spec.Check(good).ok());
  Element bad_shape{Tensor::Allocate(DType::kFloat32, Shape{5, 3}), Tensor::Scalar<int64_t>(1)};
  EXPECT_EQ(spec.Check(bad_shape).message(), "component x has shape [5, 3] but the spec says [?, 2]");
  Element bad_dtype{Tensor::Allocate(DType::kFloat32, Shape{5, 2}), Tensor::Scalar(1.0f)};
  EXPECT_EQ(spec.Check(bad_dtype).message(), "component y has dtype float32 but the spec says int64");
  EXPECT_FALSE(spec.Check(Element{}).ok());
  Element run{Tensor::Allocate(DType::kFloat32, Shape{4, 5, 2}), Tensor::Allocate(DType::kInt64, Shape{4})};
  EXPECT_TRUE(spec.Check(run, /*is_run=*/true).ok());
}

TEST(ElementSpecTest, IndexOfByNameOrPosition) {
  ElementSpec spec{{"x", DType::kFloat32, Shape{}}, {"", DType::kInt64, Shape{}}};
  EXPECT_EQ(*spec.IndexOf("x"), 0u);
  EXPECT_EQ(*spec.IndexOf("1"), 1u);
  EXPECT_FALSE(spec.IndexOf("z").ok());
}

TEST(ElementTest, JsonAndDebugString) {
  ElementSpec spec{{"x", DType::kFloat32, Shape{2}}, {"", DType::kString, Shape{}}};
  Element e{Tensor::FromVector<float>({1, 2.5f}), Tensor::Scalar("hi")};
  EXPECT_EQ(ElementToJson(spec, e), R"({"x": [1, 2.5], "1": "hi"})");
  EXPECT_EQ(e.DebugString(), R"((float32[2] [1, 2.5], string[] "hi"))");
}

TEST(ElementTest, JsonIsValidForAnyNameStringAndFloat) {
  ElementSpec spec{{"say \"hi\"\\", DType::kString, Shape{2}}, {"f", DType::kFloat32, Shape{3}}};
  Element e{Tensor::FromVector<std::string>({"\xC3\xA9t\xC3\xA9", "bad\xFF"}),
            Tensor::FromVector<float>({NAN, INFINITY, -INFINITY})};
  EXPECT_EQ(ElementToJson(spec, e),
            "{\"say \\\"hi\\\"\\\\\": [\"\xC3\xA9t\xC3\xA9\", \"bad\\udcff\"], "
            "\"f\": [\"nan\", \"inf\", \"-inf\"]}");
}

}  // namespace
}  // namespace sluice
