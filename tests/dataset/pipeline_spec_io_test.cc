#include "sluice/dataset/pipeline_spec_io.h"

#include <algorithm>
#include <cstdio>
#include <fstream>

#include "contract.h"
#include "sluice/dataset/builtin_functions.h"
#include "sluice/dataset/image_functions.h"
#include "sluice/dataset/pipeline.h"

namespace sluice {
namespace {

using testing::Collect;
using testing::ExpectElementsEqual;
using testing::Ok;

// Built with C++ factories -> spec -> text -> parsed -> built again: the same
// elements, spec, cardinality, and the same spec when written again.
void ExpectRoundTrip(const Pipeline& pipeline) {
  DatasetPtr original = Ok(Result<DatasetPtr>(pipeline.Build()));
  spec::Pipeline spec = Ok(DatasetToSpec(*original));
  const std::string text = SpecToText(spec);
  spec::Pipeline parsed = Ok(ParseSpecText(text));
  DatasetPtr rebuilt = Ok(DatasetFromSpec(parsed));
  EXPECT_EQ(rebuilt->element_spec(), original->element_spec());
  EXPECT_EQ(rebuilt->cardinality(), original->cardinality());
  EXPECT_EQ(DescribeGraph(*rebuilt), DescribeGraph(*original));
  EXPECT_EQ(SpecToText(Ok(DatasetToSpec(*rebuilt))), text);
  ExpectElementsEqual(Collect(rebuilt), Collect(original));
}

// The op of a spec node written as `text` with defaults, next to an
// explicit one: both build and write themselves back in full.
void ExpectDefaultsRoundTrip(const std::string& text, const Pipeline& explicit_pipeline) {
  DatasetPtr from_text = Ok(DatasetFromSpec(Ok(ParseSpecText(text))));
  DatasetPtr built = Ok(Result<DatasetPtr>(explicit_pipeline.Build()));
  EXPECT_EQ(SpecToText(Ok(DatasetToSpec(*from_text))), SpecToText(Ok(DatasetToSpec(*built))));
  ExpectElementsEqual(Collect(from_text), Collect(built));
}

// The error of building `text`.
Status BuildError(const std::string& text) {
  Result<spec::Pipeline> spec = ParseSpecText(text);
  if (!spec.ok()) return spec.status();
  Result<DatasetPtr> dataset = DatasetFromSpec(*spec);
  EXPECT_FALSE(dataset.ok()) << text;
  return dataset.status();
}

TEST(PipelineSpecRoundTripTest, RangeMapFilterShuffleBatch) {
  ExpectRoundTrip(Pipeline::Range({.start = 3, .stop = 40, .step = 2, .dtype = DType::kInt32})
                      .Map(Ok(MakeCastFunction("", DType::kFloat64)))
                      .Map(Ok(MakeScaleShiftFunction("0", 0.5, -1)))
                      .Filter(Ok(MakeComparePredicate("", Comparison::kLess, 15)))
                      .Shuffle({.buffer_size = 4, .seed = 7, .reshuffle_each_iteration = false})
                      .Batch({.batch_size = 3, .drop_remainder = true})
                      .Prefetch(2)
                      .Repeat(2)
                      .Skip(1)
                      .Take(3));
}

// Images for random functions: uint8 [24, 2, 3, 1], distinct values.
Pipeline SmallImages() {
  constexpr int64_t kCount = 24;
  Tensor images = Tensor::Allocate(DType::kUInt8, Shape{kCount, 2, 3, 1});
  for (int64_t i = 0; i < kCount * 6; ++i) images.mutable_data<uint8_t>()[i] = static_cast<uint8_t>(i);
  return Pipeline::FromSlices({{"image", images}});
}

// Pipeline.seed: written by the maps that took it, read back for the maps
// of the spec and of the pipelines nested in it that have none of their own.
TEST(PipelineSpecRoundTripTest, PipelineSeed) {
  const Pipeline seeded = SmallImages().Seed(42).Map(Ok(MakeRandomFlipFunction("image", {})));
  ExpectRoundTrip(seeded);
  const spec::Pipeline spec = Ok(DatasetToSpec(*Ok(Result<DatasetPtr>(seeded.Build()))));
  ASSERT_TRUE(spec.has_seed());
  EXPECT_EQ(spec.seed(), 42u);
  const std::string described = DescribeGraph(*Ok(DatasetFromSpec(spec)));
  EXPECT_NE(described.find("map(fn=random_flip(image, left_right, p=0.5), pipeline_seed=42)"), std::string::npos)
      << described;
  EXPECT_FALSE(Ok(DatasetToSpec(*testing::Build(SmallImages().Map(Ok(MakeRandomFlipFunction("image", {}))))))
                   .has_seed());

  // A nested pipeline without a seed takes the enclosing one.
  // (A fresh map: each iterator of `seeded`'s map draws anew.)
  const Pipeline zipped = Pipeline::Range(24).Zip({SmallImages().Seed(42).Map(Ok(MakeRandomFlipFunction("image", {})))});
  spec::Pipeline nested = Ok(DatasetToSpec(*testing::Build(zipped)));
  spec::Pipeline* inner = nested.mutable_ops(1)->mutable_zip()->mutable_others(0);
  ASSERT_TRUE(inner->has_seed());
  inner->clear_seed();
  nested.set_seed(42);
  ExpectElementsEqual(Collect(Ok(DatasetFromSpec(nested))), Collect(zipped));

  // One chain, one pipeline seed.
  const Pipeline two = seeded.Seed(7).Map(Ok(MakeRandomFlipFunction("image", {})));
  testing::ExpectStatus(DatasetToSpec(*testing::Build(two)).status(), StatusCode::kInvalidArgument,
                        "map: cannot write the pipeline seed 7: an op before it in the chain has pipeline seed 42");
}

TEST(PipelineSpecRoundTripTest, Counter) {
  ExpectRoundTrip(Pipeline::Counter({.start = 5, .step = -3, .dtype = DType::kInt32}).Take(4));
  ExpectDefaultsRoundTrip("ops { counter { } } ops { take { count: 3 } }", Pipeline::Counter().Take(3));
}

TEST(PipelineSpecRoundTripTest, Random) {
  ExpectRoundTrip(Pipeline::Random({.seed = 3, .rerandomize_each_iteration = true}).Take(5));
  ExpectRoundTrip(Pipeline::Random({.seed = 0}).Take(2));
}

TEST(PipelineSpecRoundTripTest, TakeWhileUnique) {
  ExpectRoundTrip(Pipeline::FromSlices({{"", testing::Vec({3, 1, 3, 2, 7, 1})}})
                      .Unique()
                      .TakeWhile(Ok(MakeComparePredicate("", Comparison::kLess, 5))));
}

TEST(PipelineSpecRoundTripTest, Rebatch) {
  ExpectRoundTrip(
      Pipeline::Range(11).Batch({.batch_size = 3}).Rebatch({.batch_sizes = {2, 1}, .drop_remainder = true}));
}

TEST(PipelineSpecRoundTripTest, Scan) {
  ExpectRoundTrip(Pipeline::FromSlices({{"x", testing::Vec({5, 6, 7})}})
                      .Scan({.initial_state = {{"prev", Tensor::Scalar<int64_t>(-1)}}},
                            Ok(MakeSelectFunction({"x", "prev"}))));
}

TEST(PipelineSpecRoundTripTest, ChooseFromDatasets) {
  ExpectRoundTrip(Pipeline::ChooseFromDatasets({Pipeline::Range(3), Pipeline::Range(5).Skip(2)},
                                               Pipeline::FromSlices({{"", testing::Vec({1, 0, 0, 1, 0, 1})}}),
                                               {.stop_on_empty_dataset = false}));
  ExpectDefaultsRoundTrip(
      "ops { counter { step: 0 } } ops { choose_from_datasets { datasets { ops { range { stop: 5 } } } } }",
      Pipeline::ChooseFromDatasets({Pipeline::Range(5)}, Pipeline::Counter({.step = 0})));
}

TEST(PipelineSpecRoundTripTest, SampleFromDatasets) {
  ExpectRoundTrip(Pipeline::SampleFromDatasets({Pipeline::Range(3), Pipeline::Range(10).Shard(2, 1)},
                                               {.weights = {0.25, 0.75}, .seed = 8, .stop_on_empty_dataset = true}));
  ExpectRoundTrip(Pipeline::SampleFromDatasets({Pipeline::Range(4), Pipeline::Range(2)}, {.seed = 1}));
}

TEST(PipelineSpecRoundTripTest, BucketBySequenceLength) {
  // Rows of lengths 1, 4, 2, 3, ... from rebatch.
  const Pipeline ragged = Pipeline::Range(30).Batch({.batch_size = 5}).Rebatch({.batch_sizes = {1, 4, 2, 3}});
  ExpectRoundTrip(ragged.BucketBySequenceLength({.bucket_boundaries = {2, 5},
                                                 .bucket_batch_sizes = {2, 3, 2},
                                                 .padding_values = {Tensor::Scalar<int64_t>(-1)},
                                                 .pad_to_bucket_boundary = true,
                                                 .drop_remainder = true}));
  ExpectRoundTrip(ragged.BucketBySequenceLength(
      {.length_component = "0", .bucket_boundaries = {3}, .bucket_batch_sizes = {2, 2}}));
}

TEST(PipelineSpecRoundTripTest, PackSequences) {
  const Pipeline ragged = Pipeline::Range(30).Batch({.batch_size = 5}).Rebatch({.batch_sizes = {1, 4, 2, 3}});
  ExpectRoundTrip(ragged.PackSequences({.sequence_lengths = {6}, .max_open_rows = 2}));
  ExpectRoundTrip(ragged.PackSequences({.sequence_lengths = {4}, .truncate_long_sequences = false}));
  ExpectDefaultsRoundTrip(R"pb(
                            ops { range { stop: 30 } }
                            ops { batch { batch_size: 5 } }
                            ops { pack_sequences { sequence_lengths: 7 } }
                          )pb",
                          Pipeline::Range(30).Batch({.batch_size = 5}).PackSequences({.sequence_lengths = {7}}));
}

TEST(PipelineSpecRoundTripTest, NamedSlicesPaddedBatchUnbatch) {
  const Tensor tokens = Tensor::FromVector<int64_t>({1, 2, 3, 4, 5, 6, 7, 8}, Shape{4, 2});
  const Tensor words = Tensor::FromVector<std::string>({"a", "b", "c", "d"});
  ExpectRoundTrip(
      Pipeline::FromSlices({{"tokens", tokens}, {"word", words}})
          .Map(Ok(MakeReshapeFunction("tokens", {2, 1})))
          .PaddedBatch({.batch_size = 3,
                        .padded_shapes = {PartialShape{3, -1}, PartialShape(Shape{})},
                        .padding_values = {Tensor::Scalar<int64_t>(-1), Tensor::Scalar("pad")}})
          .Unbatch()
          .Enumerate(10)
          .Shard(2, 1)
          .Cache()
          .IgnoreErrors());
}

TEST(PipelineSpecRoundTripTest, ZipConcatenateFromTensors) {
  const Pipeline numbers = Pipeline::Range(3);
  const Pipeline names =
      Pipeline::FromSlices({{"name", Tensor::FromVector<std::string>({"zero", "one", "two"})}});
  const Pipeline extra =
      Pipeline::FromTensors({{"n", Tensor::Scalar<int64_t>(9)}, {"name", Tensor::Scalar("nine")}});
  ExpectRoundTrip(numbers.Zip({names})
                      .Map(Ok(MakeRenameFunction({"n", "name"})))
                      .Concatenate(extra)
                      .Map(Ok(MakeSelectFunction({"name", "n"}))));
}

TEST(PipelineSpecRoundTripTest, InterleaveOverRange) {
  spec::Pipeline function = Ok(ParseSpecText(R"pb(
    ops { element_source { kind: RANGE } }
    ops { map { fn { one_hot { depth: 4 dtype: "int32" } } } }
  )pb"));
  const Pipeline input = Pipeline::Range({.start = 1, .stop = 5});
  DatasetFunctionPtr fn =
      Ok(MakeSpecDatasetFunction(function, Ok(Result<DatasetPtr>(input.Build()))->element_spec()));
  EXPECT_EQ(fn->name(), "pipeline(element_source(RANGE), map)");
  const Pipeline pipeline = input.Interleave(fn, {.cycle_length = 2, .block_length = 2});
  ExpectRoundTrip(pipeline);
  // range(1), range(2), ... interleaved two at a time, two elements per turn.
  std::vector<int64_t> hot;
  for (const Element& e : Collect(Ok(Result<DatasetPtr>(pipeline.Build())))) {
    const int32_t* row = e[0].data<int32_t>();
    hot.push_back(std::find(row, row + 4, 1) - row);
  }
  EXPECT_EQ(hot, (std::vector<int64_t>{0, 0, 1, 0, 1, 2, 0, 1, 2, 3}));
}

TEST(SpecDatasetFunctionTest, SlicesKeepNamesAndUnknownDims) {
  spec::Pipeline function = Ok(ParseSpecText(R"pb(
    ops { element_source { kind: SLICES } }
    ops { map { fn { scale_shift { component: "x" scale: 2 } } } }
  )pb"));
  const Tensor x = Tensor::FromVector<int64_t>({0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, Shape{5, 2});
  const Pipeline batches = Pipeline::FromSlices({{"x", x}}).Batch({.batch_size = 2});
  DatasetFunctionPtr fn = Ok(
      MakeSpecDatasetFunction(function, Ok(Result<DatasetPtr>(batches.Build()))->element_spec()));
  // The input is (x: int64[?, 2]); its slices are (x: float32[2]) after the map.
  EXPECT_EQ(Ok(fn->OutputSpec({{"x", DType::kInt64, PartialShape{-1, 2}}})),
            (ElementSpec{{"x", DType::kFloat32, Shape{2}}}));
  DatasetPtr dataset = Ok(Result<DatasetPtr>(batches.Interleave(fn, {.cycle_length = 1}).Build()));
  std::vector<Element> expected;
  for (int64_t i = 0; i < 5; ++i) {
    expected.push_back(Element{Tensor::FromVector<float>({4.0f * i, 4.0f * i + 2})});
  }
  ExpectElementsEqual(Collect(dataset), expected);
}

TEST(SpecDatasetFunctionTest, TensorsKeepsUnknownDimsUnknown) {
  spec::Pipeline function = Ok(ParseSpecText("ops { element_source { kind: TENSORS } }"));
  const ElementSpec input{{"v", DType::kInt64, PartialShape{-1}}};
  DatasetFunctionPtr fn = Ok(MakeSpecDatasetFunction(function, input));
  EXPECT_EQ(Ok(fn->OutputSpec(input)), input);
  DatasetPtr dataset = Ok(fn->Apply(Element{Tensor::FromVector<int64_t>({4, 5, 6})}));
  EXPECT_EQ(dataset->element_spec(), (ElementSpec{{"v", DType::kInt64, Shape{3}}}));
  spec::Pipeline written;
  ASSERT_TRUE(fn->ToSpec(&written).ok());
  EXPECT_EQ(SpecToText(written), SpecToText(function));
}

TEST(SpecDatasetFunctionTest, Errors) {
  const ElementSpec scalar_float{{"", DType::kFloat32, Shape{}}};
  testing::ExpectStatus(MakeSpecDatasetFunction(Ok(ParseSpecText("ops { range { stop: 3 } }")), scalar_float)
                  .status(),
              StatusCode::kInvalidArgument,
              "interleave's function must start with an element_source, but starts with range");
  testing::ExpectStatus(MakeSpecDatasetFunction(Ok(ParseSpecText("ops { element_source { kind: RANGE } }")),
                                      scalar_float)
                  .status(),
              StatusCode::kInvalidArgument,
              "ops[0] (element_source): RANGE needs elements that are one integer scalar, got "
              "(float32[])");
  testing::ExpectStatus(MakeSpecDatasetFunction(Ok(ParseSpecText("ops { element_source { kind: SLICES } }")),
                                      scalar_float)
                  .status(),
              StatusCode::kInvalidArgument,
              "ops[0] (element_source): SLICES needs components of rank >= 1, but component 0 is "
              "a scalar in (float32[])");
  const ElementSpec ints{{"", DType::kInt64, Shape{}}};
  DatasetFunctionPtr fn = Ok(
      MakeSpecDatasetFunction(Ok(ParseSpecText("ops { element_source { kind: RANGE } }")), ints));
  testing::ExpectStatus(fn->OutputSpec(scalar_float).status(), StatusCode::kInvalidArgument,
              "pipeline(element_source(RANGE)): built for input elements (int64[]) but given "
              "(float32[])");
  testing::ExpectStatus(fn->Apply(Element{Tensor::Scalar(1.0f)}).status(), StatusCode::kInvalidArgument,
              "element_source: component 0 has dtype float32 but the spec says int64");
}

TEST(PipelineSpecErrorTest, LambdaGraphRefusesToSerialize) {
  const Pipeline pipeline = Pipeline::Range(3)
                                .Map([](Element e) -> Result<Element> { return e; })
                                .Batch({.batch_size = 2});
  DatasetPtr dataset = Ok(Result<DatasetPtr>(pipeline.Build()));
  testing::ExpectStatus(DatasetToSpec(*dataset).status(), StatusCode::kUnimplemented,
              "map's function holds a C++ callable and cannot be written as a pipeline spec; use "
              "a built-in function to make the graph serializable");
}

TEST(PipelineSpecTest, InterleaveCycleLengthDefaultsToAutotune) {
  const spec::Pipeline spec = Ok(ParseSpecText(R"pb(
    ops { range { start: 1 stop: 3 } }
    ops { interleave { function { ops { element_source { kind: RANGE } } } } }
  )pb"));
  DatasetPtr dataset = Ok(DatasetFromSpec(spec));
  EXPECT_NE(DescribeGraph(*dataset).find("cycle_length=autotune"), std::string::npos) << DescribeGraph(*dataset);
  EXPECT_FALSE(Ok(DatasetToSpec(*dataset)).ops(1).interleave().cycle_length() > 0);  // stays autotune
}

TEST(PipelineSpecErrorTest, ChainStructure) {
  testing::ExpectStatus(BuildError(""), StatusCode::kInvalidArgument, "the pipeline spec has no ops");
  testing::ExpectStatus(BuildError("ops { batch { batch_size: 2 } }"), StatusCode::kInvalidArgument,
              "ops[0] (batch): a pipeline must start with a source (from_slices, from_tensors, "
              "range, tfrecord, text_line, csv, fixed_length_record, list_files, labelled_files, counter, random, "
              "sample_from_datasets or load)");
  testing::ExpectStatus(BuildError("ops { range { stop: 2 } } ops { range { stop: 2 } }"),
              StatusCode::kInvalidArgument,
              "ops[1] (range): a source can only be the first op of a pipeline");
  testing::ExpectStatus(BuildError("ops { element_source { } }"), StatusCode::kInvalidArgument,
              "ops[0] (element_source): element_source is only allowed as the first op of "
              "interleave's function");
  testing::ExpectStatus(BuildError("ops { range { stop: 2 } } ops { }"), StatusCode::kInvalidArgument,
              "ops[1] (unset): the node has no op set");
  testing::ExpectStatus(BuildError(R"pb(
                ops { range { stop: 2 } }
                ops {
                  interleave {
                    function {
                      ops { element_source {} }
                      ops { element_source {} }
                    }
                    cycle_length: 1
                  }
                }
              )pb"),
              StatusCode::kInvalidArgument,
              "ops[1] (interleave): function: ops[1] (element_source): element_source is only "
              "allowed as the first op of interleave's function");
}

TEST(PipelineSpecErrorTest, OpArguments) {
  testing::ExpectStatus(BuildError("ops { range { stop: 5 } } ops { batch { } }"),
              StatusCode::kInvalidArgument,
              "ops[1] (batch): batch: Batch size must be greater than zero (got 0).");
  testing::ExpectStatus(BuildError("ops { range { stop: 5 dtype: \"int\" } }"), StatusCode::kInvalidArgument,
              "ops[0] (range): dtype: unknown dtype 'int' (expected bool, uint8, int32, int64, "
              "float16, bfloat16, float32, float64 or string)");
  testing::ExpectStatus(BuildError("ops { range { stop: 5 } } ops { map { } }"), StatusCode::kInvalidArgument,
              "ops[1] (map): map has no fn");
  testing::ExpectStatus(BuildError("ops { range { stop: 5 } } ops { filter { } }"),
              StatusCode::kInvalidArgument, "ops[1] (filter): filter has no predicate");
  testing::ExpectStatus(BuildError("ops { range { stop: 5 } } ops { interleave { cycle_length: 1 } }"),
              StatusCode::kInvalidArgument, "ops[1] (interleave): interleave has no function");
  testing::ExpectStatus(BuildError("ops { range { stop: 5 } } ops { concatenate { } }"),
              StatusCode::kInvalidArgument, "ops[1] (concatenate): concatenate has no other");
  testing::ExpectStatus(
      BuildError("ops { range { stop: 5 } } ops { map { fn { cast { component: \"x\" dtype: "
                 "\"float32\" } } } }"),
      StatusCode::kInvalidArgument,
      "ops[1] (map): map: cast(x -> float32): no component named 'x' in element spec "
      "(int64[])");
  testing::ExpectStatus(BuildError("ops { range { stop: 5 } } ops { zip { others { ops { batch { } } } } }"),
              StatusCode::kInvalidArgument,
              "ops[1] (zip): others[0]: ops[0] (batch): a pipeline must start with a source "
              "(from_slices, from_tensors, range, tfrecord, text_line, csv, fixed_length_record, list_files, "
              "labelled_files, counter, random, sample_from_datasets or load)");
  testing::ExpectStatus(BuildError(R"pb(
                ops {
                  from_slices {
                    components {
                      tensor {
                        dtype: "int64"
                        shape: [ 2 ]
                        int_values: [ 1 ]
                      }
                    }
                  }
                }
              )pb"),
              StatusCode::kInvalidArgument,
              "ops[0] (from_slices): components[0]: tensor constant int64[2] needs 2 values in int_values "
              "but was given 1 int_values, 0 float_values and 0 string_values");
  testing::ExpectStatus(BuildError(R"pb(
                ops { range { stop: 5 } }
                ops {
                  padded_batch {
                    batch_size: 2
                    padded_shapes { dims: [ -2 ] }
                  }
                }
              )pb"),
              StatusCode::kInvalidArgument,
              "ops[1] (padded_batch): padded_shapes[0] has dimension -2 (expected >= 0, or -1 for "
              "the batch maximum)");
}

TEST(PipelineSpecTextTest, ParseErrorsCarryLineAndColumn) {
  testing::ExpectStatus(ParseSpecText("ops {\n  batch { batch_size: two }\n}").status(),
              StatusCode::kInvalidArgument,
              "cannot parse pipeline spec: 2:23: Expected integer, got: two");
  testing::ExpectStatus(ParseSpecText("ops { bach { } }").status(), StatusCode::kInvalidArgument,
              "cannot parse pipeline spec: 1:12: Message type \"sluice.spec.DatasetNode\" has no "
              "field named \"bach\".");
}

TEST(PipelineSpecTextTest, ReadSpecFile) {
  testing::ExpectStatus(ReadSpecFile("no/such/spec.pbtxt").status(), StatusCode::kNotFound,
              "pipeline spec file 'no/such/spec.pbtxt' does not exist");
  const std::string path = ::testing::TempDir() + "pipeline_spec_io_test.pbtxt";
  {
    std::ofstream out(path);
    out << "# a comment\nops { range { stop: 3 } }\nops { take { count: -1 }\n";
  }
  testing::ExpectStatus(ReadSpecFile(path).status(), StatusCode::kInvalidArgument,
              StrCat("cannot parse pipeline spec: ", path, ":4:1: Expected identifier, got: "));
  {
    std::ofstream out(path);
    out << "# a comment\nops { range { stop: 3 } }\nops { take { count: -1 } }\n";
  }
  spec::Pipeline spec = Ok(ReadSpecFile(path));
  EXPECT_EQ(SpecToText(spec),
            "ops {\n  range {\n    stop: 3\n  }\n}\nops {\n  take {\n    count: -1\n  }\n}\n");
  std::remove(path.c_str());
}

// range(0, 3), then `count` copies of `op`.
std::string ChainText(int count, const std::string& op) {
  std::string text = "ops { range { stop: 3 } }\n";
  for (int i = 0; i < count; ++i) text += "ops { " + op + " }\n";
  return text;
}

// range(0, 1) concatenated with a pipeline nested `depth` deep: `depth`
// concatenates, each with range(0, 1) first; depth + 1 elements.
std::string NestedConcatenateText(int depth) {
  std::string text;
  for (int i = 0; i < depth; ++i) text += "ops { range { stop: 1 } } ops { concatenate { other { ";
  text += "ops { range { stop: 1 } }";
  for (int i = 0; i < depth; ++i) text += " } } }";
  return text;
}

// range(0, 1) under interleaves nested `depth` deep, each function's source
// the element itself (so one element in all).
std::string NestedInterleaveText(int depth) {
  std::string text = "ops { range { stop: 1 } } ";
  for (int i = 0; i < depth; ++i) text += "ops { interleave { function { ops { element_source { } } ";
  for (int i = 0; i < depth; ++i) text += "} } } ";
  return text;
}

// The same nesting built as a message, without the text parser's limit.
spec::Pipeline NestedConcatenateSpec(int depth) {
  spec::Pipeline inner;
  inner.add_ops()->mutable_range()->set_stop(1);
  for (int i = 0; i < depth; ++i) {
    spec::Pipeline outer;
    outer.add_ops()->mutable_range()->set_stop(1);
    *outer.add_ops()->mutable_concatenate()->mutable_other() = std::move(inner);
    inner = std::move(outer);
  }
  return inner;
}

TEST(PipelineSpecDepthTest, ChainAtTheLimitBuildsOnePastIsRefused) {
  DatasetPtr at_limit = Ok(DatasetFromSpec(Ok(ParseSpecText(ChainText(kMaxGraphDepth - 1, "take { count: 2 }")))));
  EXPECT_EQ(at_limit->depth(), kMaxGraphDepth);
  EXPECT_EQ(Collect(at_limit).size(), 2u);
  testing::ExpectStatus(BuildError(ChainText(kMaxGraphDepth, "take { count: 2 }")), StatusCode::kInvalidArgument,
                        StrCat("ops[", kMaxGraphDepth, "] (take): take: the graph would be ", kMaxGraphDepth + 1,
                               " datasets deep, above the limit of ", kMaxGraphDepth, " (kMaxGraphDepth)"));
  // An op whose factory leaves the check to the spec's builder.
  const std::string batches = ChainText(kMaxGraphDepth / 2 - 1, "batch { batch_size: 1 } } ops { unbatch { }") +
                              "ops { batch { batch_size: 1 } }\nops { batch { batch_size: 1 } }\n";
  testing::ExpectStatus(BuildError(batches), StatusCode::kInvalidArgument,
                        StrCat("ops[", kMaxGraphDepth, "] (batch): batch: the graph would be ",
                               kMaxGraphDepth + 1, " datasets deep, above the limit of ", kMaxGraphDepth,
                               " (kMaxGraphDepth)"));
}

// 10^5 chained takes and 10^4 chained maps stop at the op past the limit.
TEST(PipelineSpecDepthTest, HugeChainsAreErrors) {
  testing::ExpectStatus(BuildError(ChainText(100'000, "take { count: 1 }")), StatusCode::kInvalidArgument,
                        StrCat("ops[", kMaxGraphDepth, "] (take): take: the graph would be ", kMaxGraphDepth + 1,
                               " datasets deep, above the limit of ", kMaxGraphDepth, " (kMaxGraphDepth)"));
  testing::ExpectStatus(BuildError(ChainText(10'000, "map { fn { cast { dtype: \"float32\" } } }")),
                        StatusCode::kInvalidArgument,
                        StrCat("ops[", kMaxGraphDepth, "] (map): map: the graph would be ", kMaxGraphDepth + 1,
                               " datasets deep, above the limit of ", kMaxGraphDepth, " (kMaxGraphDepth)"));
}

TEST(PipelineSpecDepthTest, NestedConcatenateAtTheLimitWorks) {
  const int depth = kMaxGraphDepth - 1;  // concatenates; the innermost range makes one more level
  const spec::Pipeline spec = Ok(ParseSpecText(NestedConcatenateText(depth)));
  DatasetPtr dataset = Ok(DatasetFromSpec(spec));
  EXPECT_EQ(dataset->depth(), kMaxGraphDepth);
  EXPECT_EQ(Collect(dataset).size(), static_cast<size_t>(depth + 1));
  EXPECT_EQ(Ok(DatasetFromSpec(Ok(DatasetToSpec(*dataset))))->depth(), kMaxGraphDepth);
  EXPECT_EQ(Ok(ParseSpecBinary(spec.SerializeAsString())).SerializeAsString(), spec.SerializeAsString());
  const std::string description = DescribeGraph(*dataset);
  EXPECT_EQ(std::count(description.begin(), description.end(), '\n'), 2 * depth + 1);
}

TEST(PipelineSpecDepthTest, NestingPastTheLimitIsRefused) {
  testing::ExpectStatus(DatasetFromSpec(Ok(ParseSpecText(NestedConcatenateText(kMaxGraphDepth)))).status(),
                        StatusCode::kInvalidArgument,
                        StrCat("the pipeline spec nests pipelines (as zip's others, interleave's function) ",
                               kMaxGraphDepth + 1, " deep, above the limit of ", kMaxGraphDepth,
                               " (kMaxGraphDepth)"));
  // 5,000 deep, as a message built in code.
  testing::ExpectStatus(DatasetFromSpec(NestedConcatenateSpec(5'000)).status(), StatusCode::kInvalidArgument,
                        StrCat("the pipeline spec nests pipelines (as zip's others, interleave's function) 5001 deep, "
                               "above the limit of ", kMaxGraphDepth, " (kMaxGraphDepth)"));
}

// The parsers stop at their nesting limit, before their recursion can
// exhaust the stack.
TEST(PipelineSpecDepthTest, DeeplyNestedTextAndBinaryAreParseErrors) {
  const Status text = ParseSpecText(NestedConcatenateText(5'000)).status();
  EXPECT_EQ(text.code(), StatusCode::kInvalidArgument) << text;
  EXPECT_NE(text.message().find("recursion limit"), std::string::npos) << text;
  const Status interleave = ParseSpecText(NestedInterleaveText(10'000)).status();
  EXPECT_EQ(interleave.code(), StatusCode::kInvalidArgument) << interleave;
  EXPECT_NE(interleave.message().find("recursion limit"), std::string::npos) << interleave;

  // Serialising recurses too: 5,000 levels is still fine for protobuf here.
  const std::string binary = NestedConcatenateSpec(5'000).SerializeAsString();
  const Status parsed = ParseSpecBinary(binary).status();
  EXPECT_EQ(parsed.code(), StatusCode::kInvalidArgument) << parsed;
  EXPECT_NE(parsed.message().find("nest at most"), std::string::npos) << parsed;
  testing::ExpectStatus(ParseSpecBinary("\x0a\x05garbage").status(), StatusCode::kInvalidArgument,
                        "cannot parse pipeline spec: 9 bytes are not a binary Pipeline message whose messages "
                        "nest at most 776 deep");
}

TEST(PipelineSpecDepthTest, NestedInterleaveAtAndPastTheLimit) {
  DatasetPtr at_limit = Ok(DatasetFromSpec(Ok(ParseSpecText(NestedInterleaveText(kMaxGraphDepth - 1)))));
  EXPECT_EQ(Collect(at_limit).size(), 1u);
  testing::ExpectStatus(BuildError(NestedInterleaveText(kMaxGraphDepth)), StatusCode::kInvalidArgument,
                        StrCat("the pipeline spec nests pipelines (as zip's others, interleave's function) ",
                               kMaxGraphDepth + 1, " deep, above the limit of ", kMaxGraphDepth,
                               " (kMaxGraphDepth)"));
  // Each function's element_source stands as deep as the interleave's input,
  // so a function's ops count below the chain that feeds it: 990 ops, then
  // interleaves nested 10 deep, go past the limit in the innermost function.
  const std::string interleaves = NestedInterleaveText(10);
  const std::string deep = ChainText(kMaxGraphDepth - 10, "take { count: 1 }") +
                           interleaves.substr(interleaves.find("ops { interleave"));
  const Status past = BuildError(deep);
  EXPECT_EQ(past.code(), StatusCode::kInvalidArgument) << past;
  EXPECT_TRUE(past.message().ends_with(StrCat("ops[0] (element_source): element_source: the graph would be ",
                                              kMaxGraphDepth + 1, " datasets deep, above the limit of ",
                                              kMaxGraphDepth, " (kMaxGraphDepth)")))
      << past;
}

TEST(PipelineSpecTextTest, ReadSpecFileIsBounded) {
  testing::ExpectStatus(ReadSpecFile("/dev/zero").status(), StatusCode::kInvalidArgument,
                        StrCat("cannot parse pipeline spec: file '/dev/zero' is larger than the limit of ",
                               kMaxSpecBytes, " bytes (kMaxSpecBytes)"));
  testing::ExpectStatus(ReadSpecFile("/proc/self/mem").status(), StatusCode::kInvalidArgument,
                        "cannot read pipeline spec file '/proc/self/mem' at byte offset 0: Input/output error");
  testing::ExpectStatus(ReadSpecFile("/").status(), StatusCode::kInvalidArgument,
                        "pipeline spec file '/' is a directory");
  testing::ExpectStatus(ParseSpecText(std::string(kMaxSpecBytes + 1, ' ')).status(), StatusCode::kInvalidArgument,
                        StrCat("cannot parse pipeline spec: the text is larger than the limit of ", kMaxSpecBytes,
                               " bytes (kMaxSpecBytes)"));
}

TEST(PipelineSpecBinaryTest, RoundTrip) {
  const spec::Pipeline spec = Ok(ParseSpecText(ChainText(2, "take { count: 2 }")));
  EXPECT_EQ(SpecToText(Ok(ParseSpecBinary(spec.SerializeAsString()))), SpecToText(spec));
}

}  // namespace
}  // namespace sluice
