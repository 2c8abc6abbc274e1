#include "dataset/builtin_functions.h"

#include <gtest/gtest.h>

#include "dataset/pipeline.h"
#include "dataset/pipeline_spec.pb.h"

namespace sluice {
namespace {

// (x: int64[3], y: string[]) and an element of it.
ElementSpec XYSpec() {
  return ElementSpec{{"x", DType::kInt64, Shape{3}}, {"y", DType::kString, Shape{}}};
}
Element XYElement() { return Element{Tensor::FromVector<int64_t>({1, 2, 3}), Tensor::Scalar("a")}; }

template <typename T>
T Ok(Result<T> result) {
  EXPECT_TRUE(result.ok()) << result.status();
  return std::move(result).value();
}

void ExpectError(const Status& status, StatusCode code, const std::string& message) {
  EXPECT_EQ(status.code(), code) << status;
  EXPECT_EQ(status.message(), message);
}

// Output spec and value of `fn` on one element of `spec`.
Element ApplyChecked(const ElementFunction& fn, const ElementSpec& spec, Element element,
                     const ElementSpec& expected_spec) {
  EXPECT_EQ(Ok(fn.OutputSpec(spec)), expected_spec);
  Element out = Ok(fn.Apply(std::move(element)));
  EXPECT_TRUE(expected_spec.Check(out).ok()) << expected_spec.Check(out);
  return out;
}

TEST(CastFunctionTest, CastsTheNamedComponent) {
  ElementFunctionPtr fn = Ok(MakeCastFunction("x", DType::kFloat32));
  EXPECT_EQ(fn->name(), "cast(x -> float32)");
  EXPECT_TRUE(fn->row_wise());
  Element out = ApplyChecked(*fn, XYSpec(), XYElement(),
                             {{"x", DType::kFloat32, Shape{3}}, {"y", DType::kString, Shape{}}});
  EXPECT_TRUE(out[0].Equals(Tensor::FromVector<float>({1, 2, 3})));
  EXPECT_TRUE(out[1].Equals(Tensor::Scalar("a")));
}

TEST(CastFunctionTest, EmptyComponentCastsEveryComponent) {
  ElementFunctionPtr fn = Ok(MakeCastFunction("", DType::kUInt8));
  EXPECT_EQ(fn->name(), "cast(uint8)");
  const ElementSpec spec{{"", DType::kFloat64, Shape{2}}, {"", DType::kBool, PartialShape{-1}}};
  Element out = ApplyChecked(
      *fn, spec, Element{Tensor::FromVector<double>({2.9, 300}), Tensor::FromVector<bool>({true})},
      {{"", DType::kUInt8, Shape{2}}, {"", DType::kUInt8, PartialShape{-1}}});
  EXPECT_TRUE(out[0].Equals(Tensor::FromVector<uint8_t>({2, 255})));
  EXPECT_TRUE(out[1].Equals(Tensor::FromVector<uint8_t>({1})));
}

TEST(CastFunctionTest, SameDtypePassesThroughWithoutCopy) {
  ElementFunctionPtr fn = Ok(MakeCastFunction("", DType::kString));
  const Tensor strings = Tensor::FromVector<std::string>({"a", "b"});
  const ElementSpec spec{{"", DType::kString, Shape{2}}};
  Element out = ApplyChecked(*fn, spec, Element{strings}, spec);
  EXPECT_EQ(out[0].raw_data(), strings.raw_data());
}

TEST(CastFunctionTest, StringAndNumericDoNotMix) {
  ElementFunctionPtr all = Ok(MakeCastFunction("", DType::kFloat32));
  ExpectError(all->OutputSpec(XYSpec()).status(), StatusCode::kInvalidArgument,
              "cast(float32): component y has dtype string, which cannot be cast to float32 "
              "(strings cast only to string)");
  ElementFunctionPtr to_string = Ok(MakeCastFunction("x", DType::kString));
  ExpectError(to_string->OutputSpec(XYSpec()).status(), StatusCode::kInvalidArgument,
              "cast(x -> string): component x has dtype int64, which cannot be cast to string "
              "(strings cast only to string)");
}

TEST(CastFunctionTest, UnknownComponent) {
  ElementFunctionPtr fn = Ok(MakeCastFunction("z", DType::kFloat32));
  ExpectError(fn->OutputSpec(XYSpec()).status(), StatusCode::kInvalidArgument,
              "cast(z -> float32): no component named 'z' in element spec (x: int64[3], y: "
              "string[])");
}

TEST(ScaleShiftFunctionTest, IntegerBecomesFloat32AndFloatKeepsDtype) {
  ElementFunctionPtr fn = Ok(MakeScaleShiftFunction("", 2.0, 0.5));
  EXPECT_EQ(fn->name(), "scale_shift(scale=2, shift=0.5)");
  EXPECT_TRUE(fn->row_wise());
  const ElementSpec spec{{"a", DType::kInt32, Shape{2}}, {"b", DType::kFloat64, Shape{}}};
  Element out =
      ApplyChecked(*fn, spec, Element{Tensor::FromVector<int32_t>({1, -1}), Tensor::Scalar(0.25)},
                   {{"a", DType::kFloat32, Shape{2}}, {"b", DType::kFloat64, Shape{}}});
  EXPECT_TRUE(out[0].Equals(Tensor::FromVector<float>({2.5f, -1.5f})));
  EXPECT_TRUE(out[1].Equals(Tensor::Scalar(1.0)));
}

TEST(ScaleShiftFunctionTest, NamedComponentLeavesTheOthers) {
  ElementFunctionPtr fn = Ok(MakeScaleShiftFunction("x", 1.0 / 255, 0.0));
  EXPECT_EQ(fn->name(), "scale_shift(x, scale=0.00392157, shift=0)");
  Element out = ApplyChecked(*fn, XYSpec(), XYElement(),
                             {{"x", DType::kFloat32, Shape{3}}, {"y", DType::kString, Shape{}}});
  EXPECT_TRUE(out[1].Equals(Tensor::Scalar("a")));
}

TEST(ScaleShiftFunctionTest, StringComponentIsInvalid) {
  ElementFunctionPtr fn = Ok(MakeScaleShiftFunction("y", 1.0, 0.0));
  ExpectError(fn->OutputSpec(XYSpec()).status(), StatusCode::kInvalidArgument,
              "scale_shift(y, scale=1, shift=0): component y has dtype string; scale_shift "
              "needs a numeric component");
}

TEST(ReshapeFunctionTest, InfersTheMinusOneDimension) {
  ElementFunctionPtr fn = Ok(MakeReshapeFunction("", {2, -1}));
  EXPECT_EQ(fn->name(), "reshape([2, -1])");
  EXPECT_FALSE(fn->row_wise());
  Element out = ApplyChecked(*fn, {{"v", DType::kInt64, Shape{6}}},
                             Element{Tensor::FromVector<int64_t>({0, 1, 2, 3, 4, 5})},
                             {{"v", DType::kInt64, Shape{2, 3}}});
  EXPECT_TRUE(out[0].Equals(Tensor::FromVector<int64_t>({0, 1, 2, 3, 4, 5}, Shape{2, 3})));
}

TEST(ReshapeFunctionTest, PartiallyKnownInputKeepsMinusOneUnknown) {
  ElementFunctionPtr fn = Ok(MakeReshapeFunction("x", {-1, 2}));
  const ElementSpec spec{{"x", DType::kString, PartialShape{-1}}};
  EXPECT_EQ(Ok(fn->OutputSpec(spec)), (ElementSpec{{"x", DType::kString, PartialShape{-1, 2}}}));
  Element out = Ok(fn->Apply(Element{Tensor::FromVector<std::string>({"a", "b", "c", "d"})}));
  EXPECT_EQ(out[0].shape(), (Shape{2, 2}));
  ExpectError(fn->Apply(Element{Tensor::FromVector<std::string>({"a", "b", "c"})}).status(),
              StatusCode::kInvalidArgument,
              "reshape(x -> [-1, 2]): component 0: cannot reshape a tensor of shape [3] (3 "
              "elements) to [-1, 2]");
}

TEST(ReshapeFunctionTest, MismatchIsCaughtAtBuildTime) {
  ElementFunctionPtr fn = Ok(MakeReshapeFunction("x", {2, 2}));
  ExpectError(fn->OutputSpec(XYSpec()).status(), StatusCode::kInvalidArgument,
              "reshape(x -> [2, 2]): component x: cannot reshape a tensor of shape [3] (3 "
              "elements) to [2, 2]");
  ElementFunctionPtr unnamed = Ok(MakeReshapeFunction("", {3}));
  ExpectError(unnamed->OutputSpec(XYSpec()).status(), StatusCode::kInvalidArgument,
              "reshape([3]): no component named and the element has 2 components (x: "
              "int64[3], y: string[]); name the component to use");
}

TEST(ReshapeFunctionTest, InvalidShapes) {
  ExpectError(MakeReshapeFunction("", {-1, 2, -1}).status(), StatusCode::kInvalidArgument,
              "reshape: shape [-1, 2, -1] has more than one -1 dimension");
  ExpectError(MakeReshapeFunction("", {2, -3}).status(), StatusCode::kInvalidArgument,
              "reshape: shape [2, -3] has a negative dimension other than -1");
  ExpectError(MakeReshapeFunction("", {1, 1, 1, 1, 1, 1, 1, 1, 1}).status(),
              StatusCode::kInvalidArgument,
              "reshape: shape [1, 1, 1, 1, 1, 1, 1, 1, 1] has rank 9, above the maximum rank 8");
  ExpectError(MakeReshapeFunction("", {int64_t{1} << 40, int64_t{1} << 40}).status(),
              StatusCode::kInvalidArgument,
              "reshape: shape [1099511627776, 1099511627776] has too many elements");
}

TEST(OneHotFunctionTest, AppendsDepth) {
  ElementFunctionPtr fn = Ok(MakeOneHotFunction("label", 3));
  EXPECT_EQ(fn->name(), "one_hot(label, depth=3, float32)");
  EXPECT_TRUE(fn->row_wise());
  const ElementSpec spec{{"image", DType::kUInt8, Shape{2}}, {"label", DType::kInt32, Shape{}}};
  Element out = ApplyChecked(
      *fn, spec, Element{Tensor::FromVector<uint8_t>({7, 8}), Tensor::Scalar<int32_t>(2)},
      {{"image", DType::kUInt8, Shape{2}}, {"label", DType::kFloat32, Shape{3}}});
  EXPECT_TRUE(out[1].Equals(Tensor::FromVector<float>({0, 0, 1})));
}

TEST(OneHotFunctionTest, PartialShapes) {
  ElementFunctionPtr fn = Ok(MakeOneHotFunction("", 4, DType::kInt64));
  EXPECT_EQ(Ok(fn->OutputSpec({{"", DType::kInt64, PartialShape{-1}}})),
            (ElementSpec{{"", DType::kInt64, PartialShape{-1, 4}}}));
  EXPECT_EQ(Ok(fn->OutputSpec({{"", DType::kInt64, PartialShape::UnknownRank()}})),
            (ElementSpec{{"", DType::kInt64, PartialShape::UnknownRank()}}));
}

TEST(OneHotFunctionTest, InvalidArguments) {
  ExpectError(MakeOneHotFunction("", 0).status(), StatusCode::kInvalidArgument,
              "one_hot: depth must be > 0, got 0");
  ExpectError(MakeOneHotFunction("", 2, DType::kString).status(), StatusCode::kInvalidArgument,
              "one_hot: dtype must be numeric, got string");
  ElementFunctionPtr fn = Ok(MakeOneHotFunction("", 2));
  ExpectError(fn->OutputSpec({{"p", DType::kFloat32, Shape{}}}).status(),
              StatusCode::kInvalidArgument,
              "one_hot(depth=2, float32): component p has dtype float32; one_hot needs uint8, "
              "int32 or int64 indices");
}

TEST(SelectFunctionTest, KeepsComponentsInTheGivenOrder) {
  ElementFunctionPtr fn = Ok(MakeSelectFunction({"y", "x"}));
  EXPECT_EQ(fn->name(), "select(y, x)");
  EXPECT_TRUE(fn->row_wise());
  Element out = ApplyChecked(*fn, XYSpec(), XYElement(),
                             {{"y", DType::kString, Shape{}}, {"x", DType::kInt64, Shape{3}}});
  EXPECT_TRUE(out[0].Equals(Tensor::Scalar("a")));
}

TEST(SelectFunctionTest, PositionalComponentsByIndex) {
  ElementFunctionPtr fn = Ok(MakeSelectFunction({"1"}));
  const ElementSpec spec{{"", DType::kInt64, Shape{}}, {"", DType::kBool, Shape{}}};
  Element out = ApplyChecked(*fn, spec, Element{Tensor::Scalar<int64_t>(4), Tensor::Scalar(true)},
                             {{"", DType::kBool, Shape{}}});
  EXPECT_TRUE(out[0].Equals(Tensor::Scalar(true)));
}

TEST(SelectFunctionTest, InvalidNames) {
  ExpectError(MakeSelectFunction({}).status(), StatusCode::kInvalidArgument,
              "select: at least one component name is required");
  ExpectError(MakeSelectFunction({"x", "x"}).status(), StatusCode::kInvalidArgument,
              "select: component 'x' is listed twice");
  ExpectError(MakeSelectFunction({""}).status(), StatusCode::kInvalidArgument,
              "select: component names must not be empty");
  ElementFunctionPtr fn = Ok(MakeSelectFunction({"x", "w"}));
  ExpectError(fn->OutputSpec(XYSpec()).status(), StatusCode::kInvalidArgument,
              "select(x, w): no component named 'w' in element spec (x: int64[3], y: string[])");
}

TEST(RenameFunctionTest, RenamesEveryComponent) {
  ElementFunctionPtr fn = Ok(MakeRenameFunction({"features", "id"}));
  EXPECT_EQ(fn->name(), "rename(features, id)");
  Element out =
      ApplyChecked(*fn, XYSpec(), XYElement(),
                   {{"features", DType::kInt64, Shape{3}}, {"id", DType::kString, Shape{}}});
  EXPECT_TRUE(out.Equals(XYElement()));
}

TEST(RenameFunctionTest, NeedsOneNamePerComponent) {
  ElementFunctionPtr fn = Ok(MakeRenameFunction({"only"}));
  ExpectError(fn->OutputSpec(XYSpec()).status(), StatusCode::kInvalidArgument,
              "rename(only): got 1 names for 2 components (x: int64[3], y: string[])");
  ExpectError(MakeRenameFunction({"a", "a"}).status(), StatusCode::kInvalidArgument,
              "rename: component 'a' is listed twice");
}

TEST(BindingTest, ReuseWhereTheNameMovesIsAnError) {
  ElementFunctionPtr fn = Ok(MakeCastFunction("y", DType::kFloat64));
  ExpectError(fn->Apply(XYElement()).status(), StatusCode::kFailedPrecondition,
              "cast(y -> float64): Apply called before OutputSpec resolved the component names "
              "(build the map or filter first)");
  const ElementSpec first{{"x", DType::kInt64, Shape{}}, {"y", DType::kInt64, Shape{}}};
  const ElementSpec moved{{"y", DType::kInt64, Shape{}}, {"x", DType::kInt64, Shape{}}};
  Ok(fn->OutputSpec(first));
  Ok(fn->OutputSpec(first));  // the same position again is fine
  ExpectError(fn->OutputSpec(moved).status(), StatusCode::kFailedPrecondition,
              "cast(y -> float64): this function object was first used where its components "
              "are at positions [1] and is now used where they are at [0]; make a separate "
              "function for each use");
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
    EXPECT_TRUE(predicate->CheckSpec({{"", DType::kInt32, Shape{}}}).ok());
    for (int v = 1; v <= 3; ++v) {
      EXPECT_EQ(Ok(predicate->Apply(Element{Tensor::Scalar<int32_t>(v)})), c.expected[v - 1])
          << c.name << " on " << v;
    }
  }
}

TEST(ComparePredicateTest, NamedComponentOfAnyNumericDtype) {
  PredicatePtr predicate = Ok(MakeComparePredicate("p", Comparison::kGreater, 0.5));
  EXPECT_EQ(predicate->name(), "compare(p > 0.5)");
  const ElementSpec spec{{"s", DType::kString, Shape{}}, {"p", DType::kBFloat16, Shape{}}};
  ASSERT_TRUE(predicate->CheckSpec(spec).ok());
  EXPECT_TRUE(Ok(predicate->Apply(Element{Tensor::Scalar("a"), Tensor::Scalar(BFloat16(0.75f))})));
  EXPECT_FALSE(Ok(predicate->Apply(Element{Tensor::Scalar("a"), Tensor::Scalar(BFloat16(0.5f))})));
}

TEST(ComparePredicateTest, CheckSpecNeedsANumericScalar) {
  PredicatePtr x = Ok(MakeComparePredicate("x", Comparison::kLess, 1));
  ExpectError(x->CheckSpec(XYSpec()), StatusCode::kInvalidArgument,
              "compare(x < 1): component x has shape [3]; compare needs a scalar");
  ExpectError(x->CheckSpec({{"x", DType::kInt64, PartialShape::UnknownRank()}}),
              StatusCode::kInvalidArgument,
              "compare(x < 1): component x has shape <unknown>; compare needs a scalar");
  PredicatePtr y = Ok(MakeComparePredicate("y", Comparison::kLess, 1));
  ExpectError(y->CheckSpec(XYSpec()), StatusCode::kInvalidArgument,
              "compare(y < 1): component y has dtype string; compare needs a numeric scalar");
  PredicatePtr unnamed = Ok(MakeComparePredicate("", Comparison::kLess, 1));
  ExpectError(unnamed->CheckSpec(XYSpec()), StatusCode::kInvalidArgument,
              "compare(< 1): no component named and the element has 2 components (x: int64[3], "
              "y: string[]); name the component to use");
  ExpectError(MakeComparePredicate("", static_cast<Comparison>(9), 1).status(),
              StatusCode::kInvalidArgument, "compare: unknown comparison 9");
}

// ToSpec, then FromSpec, gives a function that writes the same spec.
TEST(BuiltinSpecTest, ElementFunctionsRoundTrip) {
  const std::vector<ElementFunctionPtr> functions = {
      Ok(MakeCastFunction("x", DType::kBFloat16)),
      Ok(MakeCastFunction("", DType::kInt32)),
      Ok(MakeScaleShiftFunction("", 0.25, -3)),
      Ok(MakeReshapeFunction("a", {-1, 4})),
      Ok(MakeOneHotFunction("y", 10, DType::kUInt8)),
      Ok(MakeSelectFunction({"b", "a"})),
      Ok(MakeRenameFunction({"p", "q"})),
  };
  for (const ElementFunctionPtr& fn : functions) {
    spec::ElementFunction proto;
    ASSERT_TRUE(fn->ToSpec(&proto).ok()) << fn->name();
    ElementFunctionPtr again = Ok(ElementFunctionFromSpec(proto));
    EXPECT_EQ(again->name(), fn->name());
    spec::ElementFunction proto_again;
    ASSERT_TRUE(again->ToSpec(&proto_again).ok());
    EXPECT_EQ(proto_again.SerializeAsString(), proto.SerializeAsString()) << fn->name();
  }
}

TEST(BuiltinSpecTest, PredicateRoundTrip) {
  PredicatePtr predicate = Ok(MakeComparePredicate("label", Comparison::kNotEqual, 3));
  spec::Predicate proto;
  ASSERT_TRUE(predicate->ToSpec(&proto).ok());
  EXPECT_EQ(proto.component(), "label");
  EXPECT_EQ(proto.comparison(), spec::Predicate::NOT_EQUAL);
  EXPECT_EQ(proto.value(), 3);
  EXPECT_EQ(Ok(PredicateFromSpec(proto))->name(), "compare(label != 3)");
}

TEST(BuiltinSpecTest, FromSpecDefaultsAndErrors) {
  spec::ElementFunction one_hot;
  one_hot.mutable_one_hot()->set_depth(2);
  EXPECT_EQ(Ok(ElementFunctionFromSpec(one_hot))->name(), "one_hot(depth=2, float32)");

  ExpectError(ElementFunctionFromSpec(spec::ElementFunction()).status(),
              StatusCode::kInvalidArgument,
              "element function has no function set (expected one of cast, scale_shift, "
              "reshape, one_hot, select, rename)");
  spec::ElementFunction cast;
  cast.mutable_cast()->set_dtype("float");
  ExpectError(ElementFunctionFromSpec(cast).status(), StatusCode::kInvalidArgument,
              "cast: dtype: unknown dtype 'float' (expected bool, uint8, int32, int64, float16, "
              "bfloat16, float32, float64 or string)");
  spec::ElementFunction reshape;
  reshape.mutable_reshape()->add_shape(-2);
  ExpectError(ElementFunctionFromSpec(reshape).status(), StatusCode::kInvalidArgument,
              "reshape: shape [-2] has a negative dimension other than -1");
  spec::Predicate predicate;
  predicate.set_comparison(static_cast<spec::Predicate::Comparison>(42));
  ExpectError(PredicateFromSpec(predicate).status(), StatusCode::kInvalidArgument,
              "compare: unknown comparison 42");
}

// The functions in a pipeline: map passes whole runs to row-wise functions
// (batch pulls runs), and filter evaluates the predicate per element.
TEST(BuiltinPipelineTest, MapFilterBatch) {
  const Tensor pixels = Tensor::FromVector<uint8_t>({0, 255, 51, 102, 153, 204}, Shape{3, 2});
  const Tensor labels = Tensor::FromVector<int64_t>({2, 0, 1});
  Pipeline pipeline = Pipeline::FromSlices({{"pixels", pixels}, {"label", labels}})
                          .Map(Ok(MakeScaleShiftFunction("pixels", 1.0 / 255, 0.0)))
                          .Filter(Ok(MakeComparePredicate("label", Comparison::kNotEqual, 0)))
                          .Map(Ok(MakeOneHotFunction("label", 3)))
                          .Map(Ok(MakeSelectFunction({"label", "pixels"})))
                          .Batch({.batch_size = 2});
  DatasetPtr dataset = Ok(Result<DatasetPtr>(pipeline.Build()));
  EXPECT_EQ(dataset->element_spec(),
            (ElementSpec{{"label", DType::kFloat32, PartialShape{-1, 3}},
                         {"pixels", DType::kFloat32, PartialShape{-1, 2}}}));
  std::vector<Element> elements;
  ElementRange range = pipeline.Elements();
  for (const Element& e : range) elements.push_back(e);
  ASSERT_TRUE(range.status().ok()) << range.status();
  ASSERT_EQ(elements.size(), 1u);
  EXPECT_TRUE(elements[0][0].Equals(Tensor::FromVector<float>({0, 0, 1, 0, 1, 0}, Shape{2, 3})));
  EXPECT_TRUE(
      elements[0][1].Equals(Tensor::FromVector<float>({0.0f, 1.0f, 0.6f, 0.8f}, Shape{2, 2})));
}

TEST(BuiltinPipelineTest, ReshapeRunsPerElement) {
  const Tensor rows = Tensor::FromVector<int64_t>({0, 1, 2, 3, 4, 5}, Shape{3, 2});
  DatasetPtr dataset = Ok(Result<DatasetPtr>(
      Pipeline::FromSlices({{"v", rows}}).Map(Ok(MakeReshapeFunction("v", {2, 1}))).Build()));
  auto it = dataset->MakeIterator();
  for (int i = 0; i < 3; ++i) {
    Result<std::optional<Element>> next = it->GetNext();
    ASSERT_TRUE(next.ok()) << next.status();
    ASSERT_TRUE(next->has_value());
    EXPECT_EQ((**next)[0].shape(), (Shape{2, 1}));
  }
  EXPECT_FALSE(Ok(it->GetNext()).has_value());
}

}  // namespace
}  // namespace sluice
