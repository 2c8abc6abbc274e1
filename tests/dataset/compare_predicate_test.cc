#include "sluice/dataset/compare_predicate.h"

#include "contract.h"
#include "sluice/dataset/pipeline_spec.pb.h"

namespace sluice {
namespace {

using testing::ExpectStatus;
using testing::Ok;

// (x: int64[3], y: string[]).
ElementSpec XYSpec() {
  return ElementSpec{{"x", DType::kInt64, Shape{3}}, {"y", DType::kString, Shape{}}};
}

TEST(ComparePredicateTest, EveryComparison) {
  struct Case {
    Comparison comparison;
    std::string name;
    std::vector<bool> expected;  // for 1, 2, 3 against 2
  };
  const std::vector<Case> cases = {
      {Comparison::kEqual, "compare(== 2)", {false, true, false}},
      {Comparison::kNotEqual, "compare(!= 2)", {true, false, true}},
      {Comparison::kLess, "compare(< 2)", {true, false, false}},
      {Comparison::kLessEqual, "compare(<= 2)", {true, true, false}},
      {Comparison::kGreater, "compare(> 2)", {false, false, true}},
      {Comparison::kGreaterEqual, "compare(>= 2)", {false, true, true}},
  };
  for (const Case& c : cases) {
    PredicatePtr predicate = Ok(MakeComparePredicate("", c.comparison, 2));
    EXPECT_EQ(predicate->name(), c.name);
    BoundPredicate bound = Ok(predicate->Bind({{"", DType::kInt32, Shape{}}}));
    for (int v = 1; v <= 3; ++v) {
      EXPECT_EQ(Ok(bound(Element{Tensor::Scalar<int32_t>(v)})), c.expected[v - 1])
          << c.name << " on " << v;
    }
  }
}

TEST(ComparePredicateTest, NamedComponentOfAnyNumericDtype) {
  PredicatePtr predicate = Ok(MakeComparePredicate("p", Comparison::kGreater, 0.5));
  EXPECT_EQ(predicate->name(), "compare(p > 0.5)");
  const ElementSpec spec{{"s", DType::kString, Shape{}}, {"p", DType::kBFloat16, Shape{}}};
  BoundPredicate bound = Ok(predicate->Bind(spec));
  EXPECT_TRUE(Ok(bound(Element{Tensor::Scalar("a"), Tensor::Scalar(BFloat16(0.75f))})));
  EXPECT_FALSE(Ok(bound(Element{Tensor::Scalar("a"), Tensor::Scalar(BFloat16(0.5f))})));
}

// One predicate object bound where its component sits at different positions
// serves both: Bind keeps no state in the predicate.
TEST(ComparePredicateTest, SamePredicateAtDifferentPositions) {
  PredicatePtr predicate = Ok(MakeComparePredicate("label", Comparison::kEqual, 1));
  BoundPredicate at_0 = Ok(
      predicate->Bind({{"label", DType::kInt64, Shape{}}, {"weight", DType::kFloat32, Shape{}}}));
  BoundPredicate at_1 = Ok(
      predicate->Bind({{"weight", DType::kFloat32, Shape{}}, {"label", DType::kInt64, Shape{}}}));
  EXPECT_TRUE(Ok(at_0(Element{Tensor::Scalar<int64_t>(1), Tensor::Scalar(0.0f)})));
  EXPECT_FALSE(Ok(at_0(Element{Tensor::Scalar<int64_t>(0), Tensor::Scalar(1.0f)})));
  EXPECT_TRUE(Ok(at_1(Element{Tensor::Scalar(0.0f), Tensor::Scalar<int64_t>(1)})));
  EXPECT_FALSE(Ok(at_1(Element{Tensor::Scalar(1.0f), Tensor::Scalar<int64_t>(0)})));
}

TEST(ComparePredicateTest, BindNeedsANumericScalar) {
  PredicatePtr x = Ok(MakeComparePredicate("x", Comparison::kLess, 1));
  ExpectStatus(x->Bind(XYSpec()).status(), StatusCode::kInvalidArgument,
              "compare(x < 1): component x has shape [3]; compare needs a scalar");
  ExpectStatus(x->Bind({{"x", DType::kInt64, PartialShape::UnknownRank()}}).status(),
              StatusCode::kInvalidArgument,
              "compare(x < 1): component x has shape <unknown>; compare needs a scalar");
  PredicatePtr y = Ok(MakeComparePredicate("y", Comparison::kLess, 1));
  ExpectStatus(y->Bind(XYSpec()).status(), StatusCode::kInvalidArgument,
              "compare(y < 1): component y has dtype string; compare needs a numeric scalar");
  PredicatePtr unnamed = Ok(MakeComparePredicate("", Comparison::kLess, 1));
  ExpectStatus(unnamed->Bind(XYSpec()).status(), StatusCode::kInvalidArgument,
              "compare(< 1): no component named and the element has 2 components (x: int64[3], "
              "y: string[]); name the component to use");
  PredicatePtr missing = Ok(MakeComparePredicate("z", Comparison::kLess, 1));
  ExpectStatus(missing->Bind(XYSpec()).status(), StatusCode::kInvalidArgument,
              "compare(z < 1): no component named 'z' in element spec (x: int64[3], y: "
              "string[])");
  ExpectStatus(MakeComparePredicate("", static_cast<Comparison>(9), 1).status(),
              StatusCode::kInvalidArgument, "compare: unknown comparison 9");
}

TEST(ComparePredicateTest, BoundPredicateRejectsAnElementOfAnotherArity) {
  BoundPredicate bound =
      Ok(Ok(MakeComparePredicate("", Comparison::kLess, 1))->Bind({{"", DType::kInt64, Shape{}}}));
  ExpectStatus(bound(Element{}).status(), StatusCode::kInvalidArgument,
              "compare(< 1): got an element of 0 components, but was bound to a spec of 1");
}

TEST(ComparePredicateSpecTest, RoundTrip) {
  PredicatePtr predicate = Ok(MakeComparePredicate("label", Comparison::kNotEqual, 3));
  spec::Predicate proto;
  ASSERT_TRUE(predicate->ToSpec(&proto).ok());
  EXPECT_EQ(proto.component(), "label");
  EXPECT_EQ(proto.comparison(), spec::Predicate::NOT_EQUAL);
  EXPECT_EQ(proto.value(), 3);
  EXPECT_EQ(Ok(PredicateFromSpec(proto))->name(), "compare(label != 3)");
}

TEST(ComparePredicateSpecTest, UnknownComparison) {
  spec::Predicate predicate;
  predicate.set_comparison(static_cast<spec::Predicate::Comparison>(42));
  ExpectStatus(PredicateFromSpec(predicate).status(), StatusCode::kInvalidArgument,
              "compare: unknown comparison 42");
}

}  // namespace
}  // namespace sluice
