#include "sluice/dataset/function_registry.h"

#include <thread>

#include "contract.h"
#include "sluice/dataset/builtin_functions.h"
#include "sluice/dataset/pipeline.h"
#include "sluice/dataset/pipeline_spec_io.h"

namespace sluice {
namespace {

using testing::ExpectStatus;
using testing::Ok;

// x * factor (an int64 argument, default 2), a user's C++ function.
Result<ElementFunctionPtr> MakeTimes(const FunctionArgs& args) {
  SLUICE_RETURN_IF_ERROR(args.CheckKnown("times", {"factor"}));
  SLUICE_ASSIGN_OR_RETURN(const int64_t factor, args.Int("times", "factor", 2));
  return MakeLambdaFunction([factor](Element e) -> Result<Element> {
    return Element{Tensor::Scalar<int64_t>(e[0].scalar<int64_t>() * factor)};
  });
}

// Keeps x % divisor == 0.
Result<PredicatePtr> MakeDivisible(const FunctionArgs& args) {
  SLUICE_ASSIGN_OR_RETURN(const int64_t divisor, args.Int("divisible_by", "divisor"));
  if (divisor == 0) return InvalidArgumentError("divisor must not be 0");
  return MakeLambdaPredicate([divisor](const Element& e) -> Result<bool> { return e[0].scalar<int64_t>() % divisor == 0; });
}

// The global registry holds these for the whole test program.
void RegisterOnce() {
  static const bool registered = [] {
    EXPECT_TRUE(FunctionRegistry::Global().RegisterElementFunction("times", MakeTimes).ok());
    EXPECT_TRUE(FunctionRegistry::Global().RegisterPredicate("divisible_by", MakeDivisible).ok());
    return true;
  }();
  (void)registered;
}

std::vector<int64_t> Values(const Pipeline& pipeline) {
  std::vector<int64_t> values;
  auto elements = pipeline.Elements();
  for (const Element& e : elements) values.push_back(e[0].scalar<int64_t>());
  EXPECT_TRUE(elements.status().ok()) << elements.status();
  return values;
}

TEST(FunctionRegistryTest, RegisteredFunctionRunsAndSerializesByName) {
  RegisterOnce();
  Pipeline pipeline = Pipeline::Range(5)
                          .Map(MakeNamedFunction("times", {{"factor", int64_t{3}}}))
                          .Filter(MakeNamedPredicate("divisible_by", {{"divisor", int64_t{2}}}));
  EXPECT_EQ(Values(pipeline), (std::vector<int64_t>{0, 6, 12}));

  spec::Pipeline spec = Ok(DatasetToSpec(*Ok(pipeline.Build())));
  EXPECT_EQ(spec.ops(1).map().fn().named().name(), "times");
  ASSERT_EQ(spec.ops(1).map().fn().named().args_size(), 1);
  EXPECT_EQ(spec.ops(1).map().fn().named().args(0).key(), "factor");
  EXPECT_EQ(spec.ops(1).map().fn().named().args(0).value().int_value(), 3);
  EXPECT_EQ(spec.ops(2).filter().predicate().named().name(), "divisible_by");
  // Read back, it runs the same.
  DatasetPtr again = Ok(DatasetFromSpec(spec));
  EXPECT_EQ(SpecToText(Ok(DatasetToSpec(*again))), SpecToText(spec));
  EXPECT_NE(DescribeGraph(*again).find("times(factor=3)"), std::string::npos) << DescribeGraph(*again);
}

TEST(FunctionRegistryTest, SpecNamesARegisteredFunction) {
  RegisterOnce();
  spec::Pipeline spec = Ok(ParseSpecText(R"pb(
    ops { range { stop: 4 } }
    ops { map { fn { named { name: "times" } } } }
    ops { filter { predicate { named { name: "divisible_by" args { key: "divisor" value { int_value: 4 } } } } } }
  )pb"));
  DatasetPtr dataset = Ok(DatasetFromSpec(spec));
  EXPECT_EQ(Values(Pipeline(dataset)), (std::vector<int64_t>{0, 4}));
}

TEST(FunctionRegistryTest, AnArgumentGivenTwiceIsRefused) {
  RegisterOnce();
  spec::Pipeline spec = Ok(ParseSpecText(R"pb(
    ops { range { stop: 4 } }
    ops { map { fn { named { name: "times" args { key: "factor" value { int_value: 2 } }
                                           args { key: "factor" value { int_value: 3 } } } } } }
  )pb"));
  Result<DatasetPtr> dataset = DatasetFromSpec(spec);
  ASSERT_EQ(dataset.status().code(), StatusCode::kInvalidArgument) << dataset.status();
  EXPECT_NE(dataset.status().message().find("times: argument 'factor' is given twice"), std::string::npos)
      << dataset.status();
}

TEST(FunctionRegistryTest, UnknownNameIsNotFoundWithSuggestions) {
  RegisterOnce();
  Result<ElementFunctionPtr> fn = MakeNamedFunction("tmies");
  ASSERT_EQ(fn.status().code(), StatusCode::kNotFound) << fn.status();
  EXPECT_NE(fn.status().message().find("no element function is named 'tmies'; did you mean 'times'?"),
            std::string::npos)
      << fn.status();
  EXPECT_NE(fn.status().message().find("scale_shift"), std::string::npos) << "lists the built-ins";

  spec::Pipeline spec = Ok(ParseSpecText(R"pb(
    ops { range { stop: 4 } }
    ops { map { fn { named { name: "no_such_function" } } } }
  )pb"));
  Result<DatasetPtr> dataset = DatasetFromSpec(spec);
  ASSERT_EQ(dataset.status().code(), StatusCode::kNotFound) << dataset.status();
  EXPECT_NE(dataset.status().message().find("ops[1] (map)"), std::string::npos) << dataset.status();
  EXPECT_NE(dataset.status().message().find("'no_such_function'"), std::string::npos) << dataset.status();
}

TEST(FunctionRegistryTest, DuplicateAndInvalidNamesAreRefused) {
  FunctionRegistry registry;
  ASSERT_TRUE(registry.RegisterElementFunction("mine", MakeTimes).ok());
  ExpectStatus(registry.RegisterElementFunction("mine", MakeTimes), StatusCode::kAlreadyExists,
               "function 'mine' is already registered");
  ExpectStatus(registry.RegisterElementFunction("cast", MakeTimes), StatusCode::kAlreadyExists,
               "function 'cast' is a built-in");
  ExpectStatus(registry.RegisterPredicate("mine", MakeDivisible), StatusCode::kAlreadyExists,
               "predicate 'mine' has the name of an element function");
  EXPECT_EQ(registry.RegisterElementFunction("a.b", MakeTimes).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(registry.RegisterElementFunction("", MakeTimes).code(), StatusCode::kInvalidArgument);
}

TEST(FunctionRegistryTest, FactoryErrorsNameTheFunctionAndArgument) {
  FunctionRegistry registry;
  ASSERT_TRUE(registry.RegisterElementFunction("times", MakeTimes).ok());
  ASSERT_TRUE(registry.RegisterPredicate("divisible_by", MakeDivisible).ok());
  ExpectStatus(registry.MakeElementFunction("times", {{"factor", 1.5}}).status(), StatusCode::kInvalidArgument,
               "function 'times': times: argument 'factor' must be an integer, got a float");
  ExpectStatus(registry.MakeElementFunction("times", {{"factr", int64_t{1}}}).status(), StatusCode::kInvalidArgument,
               "function 'times': times: unknown argument 'factr' (it takes factor)");
  ExpectStatus(registry.MakePredicate("divisible_by").status(), StatusCode::kInvalidArgument,
               "predicate 'divisible_by': divisible_by: argument 'divisor' is required (an integer)");
}

TEST(FunctionRegistryTest, BuiltinsAreListedAndMadeByName) {
  FunctionRegistry registry;
  const std::vector<std::string> names = registry.ElementFunctionNames();
  for (const char* builtin : {"cast", "scale_shift", "one_hot", "parse_example"}) {
    EXPECT_NE(std::find(names.begin(), names.end(), builtin), names.end()) << builtin;
  }
  EXPECT_EQ(std::find(names.begin(), names.end(), "named"), names.end());

  ElementFunctionPtr fn = Ok(registry.MakeElementFunction("scale_shift", {{"scale", 2.0}, {"shift", int64_t{1}}}));
  EXPECT_EQ(fn->name(), Ok(MakeScaleShiftFunction("", 2, 1))->name());
  ElementFunctionPtr reshape = Ok(registry.MakeElementFunction(
      "reshape", {{"shape", Tensor::FromVector<int64_t>({2, -1})}}));
  EXPECT_EQ(reshape->name(), "reshape([2, -1])");
  ElementFunctionPtr cast = Ok(registry.MakeElementFunction("cast", {{"dtype", std::string("float32")}}));
  EXPECT_EQ(cast->name(), "cast(float32)");

  ExpectStatus(registry.MakeElementFunction("scale_shift", {{"scael", 2.0}}).status(), StatusCode::kInvalidArgument,
               "scale_shift: unknown argument 'scael' (it takes component, scale, shift)");
  ExpectStatus(registry.MakeElementFunction("scale_shift", {{"scale", std::string("x")}}).status(),
               StatusCode::kInvalidArgument,
               "scale_shift: argument 'scale' must be a number (field sluice.spec.ScaleShift.scale)");
}

TEST(FunctionRegistryTest, BuiltinAsPredicateSerializesByName) {
  // compare's output is no bool: a built-in that returns one bool scalar is
  // the only kind accepted; cast of a bool scalar to bool is one.
  Pipeline pipeline = Pipeline::FromSlices({{"", Tensor::FromVector<bool>({true, false, true})}})
                          .Filter(MakeNamedPredicate("cast", {{"dtype", std::string("bool")}}));
  auto elements = pipeline.Elements();
  int kept = 0;
  for (const Element& e : elements) kept += e[0].scalar<bool>() ? 1 : 0;
  EXPECT_EQ(kept, 2);
  spec::Pipeline spec = Ok(DatasetToSpec(*Ok(pipeline.Build())));
  EXPECT_EQ(spec.ops(1).filter().predicate().named().name(), "cast");
  EXPECT_EQ(SpecToText(Ok(DatasetToSpec(*Ok(DatasetFromSpec(spec))))), SpecToText(spec));

  Result<DatasetPtr> not_bool = Pipeline::Range(3).Filter(MakeNamedPredicate("cast", {{"dtype", std::string("int64")}})).Build();
  ASSERT_FALSE(not_bool.ok());
  EXPECT_NE(not_bool.status().message().find("a predicate must return one bool scalar"), std::string::npos)
      << not_bool.status();
}

TEST(FunctionRegistryTest, ConcurrentRegistrationAndLookup) {
  FunctionRegistry registry;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&registry, t] {
      for (int i = 0; i < 50; ++i) {
        EXPECT_TRUE(registry.RegisterElementFunction(StrCat("f", t, "_", i), MakeTimes).ok());
        EXPECT_TRUE(registry.MakeElementFunction(StrCat("f", t, "_", i)).ok());
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  const std::vector<std::string> names = registry.ElementFunctionNames();
  EXPECT_EQ(std::count_if(names.begin(), names.end(), [](const std::string& n) { return n[0] == 'f' && n.find('_') != std::string::npos && isdigit(n[1]); }), 200);
}

TEST(FunctionRegistryTest, SuggestNamesRanksByEditDistance) {
  EXPECT_EQ(SuggestNames("clip", {"clap", "flip", "zzzzzz"}),
            "; did you mean 'clap', 'flip'? (registered: clap, flip, zzzzzz)");
  EXPECT_EQ(SuggestNames("abc", {}), " (none are registered)");
  EXPECT_EQ(SuggestNames("abc", {"xyz"}), " (registered: xyz)");
}

}  // namespace
}  // namespace sluice
