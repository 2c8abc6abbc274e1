#include "sluice/dataset/builtin_functions.h"

#include "contract.h"
#include "sluice/dataset/pipeline.h"
#include "sluice/dataset/pipeline_spec.pb.h"

namespace sluice {
namespace {

using testing::ExpectStatus;
using testing::Ok;

// (x: int64[3], y: string[]) and an element of it.
ElementSpec XYSpec() {
  return ElementSpec{{"x", DType::kInt64, Shape{3}}, {"y", DType::kString, Shape{}}};
}
Element XYElement() { return Element{Tensor::FromVector<int64_t>({1, 2, 3}), Tensor::Scalar("a")}; }

// Binds `fn` to `spec`, checks the output spec, and applies it to one
// element of `spec`.
Element ApplyChecked(const ElementFunction& fn, const ElementSpec& spec, Element element,
                     const ElementSpec& expected_spec) {
  BoundElementFunction bound = Ok(fn.Bind(spec));
  EXPECT_EQ(bound.output_spec, expected_spec);
  Element out = Ok(bound.apply(std::move(element)));
  EXPECT_TRUE(expected_spec.Check(out).ok()) << expected_spec.Check(out);
  return out;
}

bool RowWise(const ElementFunction& fn, const ElementSpec& spec) {
  return Ok(fn.Bind(spec)).row_wise;
}

TEST(CastFunctionTest, CastsTheNamedComponent) {
  ElementFunctionPtr fn = Ok(MakeCastFunction("x", DType::kFloat32));
  EXPECT_EQ(fn->name(), "cast(x -> float32)");
  EXPECT_TRUE(RowWise(*fn, XYSpec()));
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
  ExpectStatus(all->Bind(XYSpec()).status(), StatusCode::kInvalidArgument,
              "cast(float32): component y has dtype string, which cannot be cast to float32 "
              "(strings cast only to string)");
  ElementFunctionPtr to_string = Ok(MakeCastFunction("x", DType::kString));
  ExpectStatus(to_string->Bind(XYSpec()).status(), StatusCode::kInvalidArgument,
              "cast(x -> string): component x has dtype int64, which cannot be cast to string "
              "(strings cast only to string)");
}

TEST(CastFunctionTest, UnknownComponent) {
  ElementFunctionPtr fn = Ok(MakeCastFunction("z", DType::kFloat32));
  ExpectStatus(fn->Bind(XYSpec()).status(), StatusCode::kInvalidArgument,
              "cast(z -> float32): no component named 'z' in element spec (x: int64[3], y: "
              "string[])");
}

TEST(ScaleShiftFunctionTest, IntegerBecomesFloat32AndFloatKeepsDtype) {
  ElementFunctionPtr fn = Ok(MakeScaleShiftFunction("", 2.0, 0.5));
  EXPECT_EQ(fn->name(), "scale_shift(scale=2, shift=0.5)");
  const ElementSpec spec{{"a", DType::kInt32, Shape{2}}, {"b", DType::kFloat64, Shape{}}};
  EXPECT_TRUE(RowWise(*fn, spec));
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
  ExpectStatus(fn->Bind(XYSpec()).status(), StatusCode::kInvalidArgument,
              "scale_shift(y, scale=1, shift=0): component y has dtype string; scale_shift "
              "needs a numeric component");
}

TEST(ReshapeFunctionTest, InfersTheMinusOneDimension) {
  ElementFunctionPtr fn = Ok(MakeReshapeFunction("", {2, -1}));
  EXPECT_EQ(fn->name(), "reshape([2, -1])");
  EXPECT_FALSE(RowWise(*fn, {{"v", DType::kInt64, Shape{6}}}));
  Element out = ApplyChecked(*fn, {{"v", DType::kInt64, Shape{6}}},
                             Element{Tensor::FromVector<int64_t>({0, 1, 2, 3, 4, 5})},
                             {{"v", DType::kInt64, Shape{2, 3}}});
  EXPECT_TRUE(out[0].Equals(Tensor::FromVector<int64_t>({0, 1, 2, 3, 4, 5}, Shape{2, 3})));
}

TEST(ReshapeFunctionTest, PartiallyKnownInputKeepsMinusOneUnknown) {
  ElementFunctionPtr fn = Ok(MakeReshapeFunction("x", {-1, 2}));
  const ElementSpec spec{{"x", DType::kString, PartialShape{-1}}};
  BoundElementFunction bound = Ok(fn->Bind(spec));
  EXPECT_EQ(bound.output_spec, (ElementSpec{{"x", DType::kString, PartialShape{-1, 2}}}));
  Element out = Ok(bound.apply(Element{Tensor::FromVector<std::string>({"a", "b", "c", "d"})}));
  EXPECT_EQ(out[0].shape(), (Shape{2, 2}));
  ExpectStatus(bound.apply(Element{Tensor::FromVector<std::string>({"a", "b", "c"})}).status(),
              StatusCode::kInvalidArgument,
              "reshape(x -> [-1, 2]): component x: cannot reshape a tensor of shape [3] (3 "
              "elements) to [-1, 2]");
}

TEST(ReshapeFunctionTest, MismatchIsCaughtAtBuildTime) {
  ElementFunctionPtr fn = Ok(MakeReshapeFunction("x", {2, 2}));
  ExpectStatus(fn->Bind(XYSpec()).status(), StatusCode::kInvalidArgument,
              "reshape(x -> [2, 2]): component x: cannot reshape a tensor of shape [3] (3 "
              "elements) to [2, 2]");
  ElementFunctionPtr unnamed = Ok(MakeReshapeFunction("", {3}));
  ExpectStatus(unnamed->Bind(XYSpec()).status(), StatusCode::kInvalidArgument,
              "reshape([3]): no component named and the element has 2 components (x: "
              "int64[3], y: string[]); name the component to use");
}

TEST(ReshapeFunctionTest, InvalidShapes) {
  ExpectStatus(MakeReshapeFunction("", {-1, 2, -1}).status(), StatusCode::kInvalidArgument,
              "reshape: shape [-1, 2, -1] has more than one -1 dimension");
  ExpectStatus(MakeReshapeFunction("", {2, -3}).status(), StatusCode::kInvalidArgument,
              "reshape: shape [2, -3] has a negative dimension other than -1");
  ExpectStatus(MakeReshapeFunction("", {1, 1, 1, 1, 1, 1, 1, 1, 1}).status(),
              StatusCode::kInvalidArgument,
              "reshape: shape [1, 1, 1, 1, 1, 1, 1, 1, 1] has rank 9, above the maximum rank 8");
  ExpectStatus(MakeReshapeFunction("", {int64_t{1} << 40, int64_t{1} << 40}).status(),
              StatusCode::kInvalidArgument,
              "reshape: shape [1099511627776, 1099511627776] has too many elements");
}

TEST(OneHotFunctionTest, AppendsDepth) {
  ElementFunctionPtr fn = Ok(MakeOneHotFunction("label", 3));
  EXPECT_EQ(fn->name(), "one_hot(label, depth=3, float32)");
  const ElementSpec spec{{"image", DType::kUInt8, Shape{2}}, {"label", DType::kInt32, Shape{}}};
  EXPECT_TRUE(RowWise(*fn, spec));
  Element out = ApplyChecked(
      *fn, spec, Element{Tensor::FromVector<uint8_t>({7, 8}), Tensor::Scalar<int32_t>(2)},
      {{"image", DType::kUInt8, Shape{2}}, {"label", DType::kFloat32, Shape{3}}});
  EXPECT_TRUE(out[1].Equals(Tensor::FromVector<float>({0, 0, 1})));
}

TEST(OneHotFunctionTest, PartialShapes) {
  ElementFunctionPtr fn = Ok(MakeOneHotFunction("", 4, DType::kInt64));
  EXPECT_EQ(Ok(fn->Bind({{"", DType::kInt64, PartialShape{-1}}})).output_spec,
            (ElementSpec{{"", DType::kInt64, PartialShape{-1, 4}}}));
  EXPECT_EQ(Ok(fn->Bind({{"", DType::kInt64, PartialShape::UnknownRank()}})).output_spec,
            (ElementSpec{{"", DType::kInt64, PartialShape::UnknownRank()}}));
}

TEST(OneHotFunctionTest, InvalidArguments) {
  ExpectStatus(MakeOneHotFunction("", 0).status(), StatusCode::kInvalidArgument,
              "one_hot: depth must be > 0, got 0");
  ExpectStatus(MakeOneHotFunction("", 2, DType::kString).status(), StatusCode::kInvalidArgument,
              "one_hot: dtype must be numeric, got string");
  ElementFunctionPtr fn = Ok(MakeOneHotFunction("", 2));
  ExpectStatus(fn->Bind({{"p", DType::kFloat32, Shape{}}}).status(),
              StatusCode::kInvalidArgument,
              "one_hot(depth=2, float32): component p has dtype float32; one_hot needs uint8, "
              "int32 or int64 indices");
}

TEST(SelectFunctionTest, KeepsComponentsInTheGivenOrder) {
  ElementFunctionPtr fn = Ok(MakeSelectFunction({"y", "x"}));
  EXPECT_EQ(fn->name(), "select(y, x)");
  EXPECT_TRUE(RowWise(*fn, XYSpec()));
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
  ExpectStatus(MakeSelectFunction({}).status(), StatusCode::kInvalidArgument,
              "select: at least one component name is required");
  ExpectStatus(MakeSelectFunction({"x", "x"}).status(), StatusCode::kInvalidArgument,
              "select: component 'x' is listed twice");
  ExpectStatus(MakeSelectFunction({""}).status(), StatusCode::kInvalidArgument,
              "select: component names must not be empty");
  ElementFunctionPtr fn = Ok(MakeSelectFunction({"x", "w"}));
  ExpectStatus(fn->Bind(XYSpec()).status(), StatusCode::kInvalidArgument,
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
  ExpectStatus(fn->Bind(XYSpec()).status(), StatusCode::kInvalidArgument,
              "rename(only): got 1 names for 2 components (x: int64[3], y: string[])");
  ExpectStatus(MakeRenameFunction({"a", "a"}).status(), StatusCode::kInvalidArgument,
              "rename: component 'a' is listed twice");
}

// Bind keeps no state in the function: one object bound where its component
// sits at different positions serves both, in any order.
TEST(BindTest, SameFunctionAtDifferentPositions) {
  ElementFunctionPtr fn = Ok(MakeScaleShiftFunction("x", 2.0, 1.0));
  const ElementSpec first{{"x", DType::kInt64, Shape{}}, {"y", DType::kInt64, Shape{}}};
  const ElementSpec moved{{"y", DType::kInt64, Shape{}}, {"x", DType::kInt64, Shape{}}};
  BoundElementFunction at_0 = Ok(fn->Bind(first));
  BoundElementFunction at_1 = Ok(fn->Bind(moved));
  EXPECT_EQ(at_0.output_spec,
            (ElementSpec{{"x", DType::kFloat32, Shape{}}, {"y", DType::kInt64, Shape{}}}));
  EXPECT_EQ(at_1.output_spec,
            (ElementSpec{{"y", DType::kInt64, Shape{}}, {"x", DType::kFloat32, Shape{}}}));
  const Element element{Tensor::Scalar<int64_t>(3), Tensor::Scalar<int64_t>(5)};
  EXPECT_TRUE(
      Ok(at_0.apply(element)).Equals(Element{Tensor::Scalar(7.0f), Tensor::Scalar<int64_t>(5)}));
  EXPECT_TRUE(
      Ok(at_1.apply(element)).Equals(Element{Tensor::Scalar<int64_t>(3), Tensor::Scalar(11.0f)}));

  ElementFunctionPtr select = Ok(MakeSelectFunction({"x"}));
  BoundElementFunction select_1 = Ok(select->Bind(moved));
  BoundElementFunction select_0 = Ok(select->Bind(first));
  EXPECT_TRUE(Ok(select_1.apply(element)).Equals(Element{Tensor::Scalar<int64_t>(5)}));
  EXPECT_TRUE(Ok(select_0.apply(element)).Equals(Element{Tensor::Scalar<int64_t>(3)}));
}

TEST(BindTest, BoundFunctionRejectsAnElementOfAnotherArity) {
  BoundElementFunction bound = Ok(Ok(MakeCastFunction("x", DType::kFloat64))->Bind(XYSpec()));
  ExpectStatus(bound.apply(Element{Tensor::Scalar<int64_t>(1)}).status(),
              StatusCode::kInvalidArgument,
              "cast(x -> float64): got an element of 1 components, but was bound to a spec of 2");
}

TEST(DecodeRawFunctionTest, AStringBecomesAVectorOfTheDtype) {
  ElementFunctionPtr fn = Ok(MakeDecodeRawFunction("y", {.dtype = DType::kUInt8}));
  EXPECT_EQ(fn->name(), "decode_raw(y -> uint8)");
  EXPECT_FALSE(RowWise(*fn, XYSpec())) << "rows of a run may differ in length";
  Element out = ApplyChecked(*fn, XYSpec(), Element{Tensor::FromVector<int64_t>({1, 2, 3}), Tensor::Scalar("ab")},
                             {{"x", DType::kInt64, Shape{3}}, {"y", DType::kUInt8, PartialShape{-1}}});
  EXPECT_TRUE(out[1].Equals(Tensor::FromVector<uint8_t>({'a', 'b'})));

  // With fixed_length the shape is known and runs decode as rows.
  ElementFunctionPtr fixed = Ok(MakeDecodeRawFunction("", {.dtype = DType::kInt32, .fixed_length = 8}));
  EXPECT_EQ(fixed->name(), "decode_raw(int32, fixed_length=8)");
  const ElementSpec strings{{"", DType::kString, Shape{}}};
  EXPECT_TRUE(RowWise(*fixed, strings));
  Element ints = ApplyChecked(*fixed, strings, Element{Tensor::Scalar(std::string("\x05\0\0\0", 4))},
                              {{"", DType::kInt32, Shape{2}}});
  EXPECT_TRUE(ints[0].Equals(Tensor::FromVector<int32_t>({5, 0})));

  ExpectStatus(Ok(MakeDecodeRawFunction("x", {.dtype = DType::kUInt8}))->Bind(XYSpec()).status(),
               StatusCode::kInvalidArgument, "decode_raw(x -> uint8): component x has dtype int64; decode_raw needs strings");
  EXPECT_EQ(MakeDecodeRawFunction("", {.dtype = DType::kString}).status().code(), StatusCode::kInvalidArgument);
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
      Ok(MakeDecodeRawFunction("y", {.dtype = DType::kInt32, .little_endian = false, .fixed_length = 8})),
      Ok(MakeDecodeRawFunction("", {.dtype = DType::kUInt8})),
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

TEST(BuiltinSpecTest, FromSpecDefaultsAndErrors) {
  spec::ElementFunction one_hot;
  one_hot.mutable_one_hot()->set_depth(2);
  EXPECT_EQ(Ok(ElementFunctionFromSpec(one_hot))->name(), "one_hot(depth=2, float32)");

  ExpectStatus(ElementFunctionFromSpec(spec::ElementFunction()).status(),
              StatusCode::kInvalidArgument,
              "element function has no function set (expected one of cast, scale_shift, "
              "reshape, one_hot, select, rename)");
  spec::ElementFunction cast;
  cast.mutable_cast()->set_dtype("float");
  ExpectStatus(ElementFunctionFromSpec(cast).status(), StatusCode::kInvalidArgument,
              "cast: dtype: unknown dtype 'float' (expected bool, uint8, int32, int64, float16, "
              "bfloat16, float32, float64 or string)");
  spec::ElementFunction reshape;
  reshape.mutable_reshape()->add_shape(-2);
  ExpectStatus(ElementFunctionFromSpec(reshape).status(), StatusCode::kInvalidArgument,
              "reshape: shape [-2] has a negative dimension other than -1");
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

// A depth whose output size overflows fails at Bind when the shape is known,
// and on the element otherwise, naming the function and the component.
TEST(OneHotFunctionTest, HugeDepthsAreErrors) {
  ElementFunctionPtr fn = Ok(MakeOneHotFunction("label", int64_t{1} << 61));
  Status bind = fn->Bind({{"label", DType::kInt32, Shape{2}}}).status();
  EXPECT_EQ(bind.code(), StatusCode::kInvalidArgument) << bind;
  EXPECT_NE(bind.message().find("one_hot(label, depth=2305843009213693952, float32): component label: shape [2, "
                                "2305843009213693952] of float32 takes more bytes than fit in int64"),
            std::string::npos)
      << bind;
  BoundElementFunction bound = Ok(fn->Bind({{"label", DType::kInt32, PartialShape{-1}}}));
  Result<Element> applied = bound.apply(Element{Tensor::FromVector<int32_t>({1, 2, 3, 4})});
  ASSERT_FALSE(applied.ok());
  EXPECT_EQ(applied.status().code(), StatusCode::kInvalidArgument) << applied.status();
  EXPECT_NE(applied.status().message().find("component label"), std::string::npos) << applied.status();
}

}  // namespace
}  // namespace sluice
