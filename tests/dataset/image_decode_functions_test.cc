#include <gtest/gtest.h>

#include "contract.h"
#include "function_spec_round_trip.h"
#include "ops/image_test_util.h"
#include "sluice/dataset/builtin_functions.h"
#include "sluice/dataset/image_functions.h"
#include "sluice/dataset/pipeline.h"
#include "sluice/dataset/pipeline_spec.pb.h"
#include "sluice/dataset/pipeline_spec_io.h"
#include "sluice/dataset/parse_example.h"
#include "sluice/dataset/tfrecord_dataset.h"
#include "sluice/ops/encode_jpeg.h"
#include "sluice/tfrecord/example.pb.h"
#include "sluice/tfrecord/record_writer.h"

namespace sluice {
namespace {

using testing::CollectResults;
using testing::ExpectStatus;
using testing::Ok;
using testing::TempDir;
using testing::TestPicture;

// Three JPEG records, the middle one truncated, as a (image, label) dataset.
class DecodeFunctionsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (int i = 0; i < 3; ++i) {
      jpegs_.push_back(testing::CjpegEncode(dir_, TestPicture(20 + i, 30, 3, i + 1), "-sample 2x2"));
    }
    jpegs_[1].resize(jpegs_[1].size() / 2);
  }
  Pipeline Records() const {
    return Pipeline::FromSlices({{"image", Tensor::FromVector<std::string>(jpegs_)},
                                 {"label", Tensor::FromVector<int64_t>({0, 1, 2})}});
  }
  TempDir dir_;
  std::vector<std::string> jpegs_;
};

TEST_F(DecodeFunctionsTest, OutputSpecsAreStaticWhereTheChannelsAre) {
  const ElementSpec records{{"image", DType::kString, Shape{}}, {"label", DType::kInt64, Shape{}}};
  struct Case {
    Result<ElementFunctionPtr> fn;
    int64_t channels;
  };
  Case cases[] = {{MakeDecodeJpegFunction("image", {.channels = 3}), 3},
                  {MakeDecodeJpegFunction("image"), -1},
                  {MakeDecodePngFunction("image", {.channels = 4}), 4},
                  {MakeDecodeImageFunction("image", {.channels = 1}), 1}};
  for (Case& c : cases) {
    BoundElementFunction bound = Ok(Ok(std::move(c.fn))->Bind(records));
    EXPECT_EQ(bound.output_spec, (ElementSpec{{"image", DType::kUInt8, PartialShape{-1, -1, c.channels}},
                                              {"label", DType::kInt64, Shape{}}}));
    EXPECT_FALSE(bound.row_wise);
  }
}

TEST_F(DecodeFunctionsTest, BindRejectsWhatIsNotAScalarString) {
  ElementFunctionPtr fn = Ok(MakeDecodeJpegFunction("image", {.channels = 3}));
  EXPECT_EQ(fn->name(), "decode_jpeg(image, channels=3, ratio=1, dct=accurate)");
  ExpectStatus(fn->Bind({{"image", DType::kUInt8, Shape{4}}}).status(), StatusCode::kInvalidArgument,
               "decode_jpeg(image, channels=3, ratio=1, dct=accurate): component image is uint8[4]; "
               "a decoder needs a scalar string of encoded bytes");
  ExpectStatus(fn->Bind({{"image", DType::kString, Shape{2}}}).status(), StatusCode::kInvalidArgument,
               "decode_jpeg(image, channels=3, ratio=1, dct=accurate): component image is string[2]; "
               "a decoder needs a scalar string of encoded bytes");
  ExpectStatus(fn->Bind({{"other", DType::kString, Shape{}}}).status(), StatusCode::kInvalidArgument,
               "decode_jpeg(image, channels=3, ratio=1, dct=accurate): no component named 'image' in "
               "element spec (other: string[])");
}

TEST_F(DecodeFunctionsTest, FactoriesValidateOptions) {
  ExpectStatus(MakeDecodeJpegFunction("", {.ratio = 3}).status(), StatusCode::kInvalidArgument,
               "decode_jpeg: ratio must be 1, 2, 4 or 8, got 3");
  ExpectStatus(MakeDecodePngFunction("", {.channels = 2}).status(), StatusCode::kInvalidArgument,
               "decode_png: channels must be 0, 1, 3 or 4, got 2");
  ExpectStatus(MakeDecodeImageFunction("", {.max_pixels = 0}).status(), StatusCode::kInvalidArgument,
               "decode_image: max_pixels must be > 0, got 0");
}

// A corrupt image is that element's DataLoss error, naming the function and
// the component; the iterator goes on, and ignore_errors drops it.
TEST_F(DecodeFunctionsTest, CorruptImageIsAnErrorForThatElementOnly) {
  for (int64_t parallelism : {0, 3}) {
    SCOPED_TRACE(parallelism);
    DatasetPtr dataset = Ok(Result<DatasetPtr>(
        Records().Map(MakeDecodeJpegFunction("image", {.channels = 3}), {.num_parallel_calls = parallelism}).Build()));
    std::vector<Result<Element>> results = CollectResults(dataset);
    ASSERT_EQ(results.size(), 3u);
    for (int i : {0, 2}) {
      ASSERT_TRUE(results[i].ok()) << results[i].status();
      EXPECT_TRUE((*results[i])[0].Equals(Ok(DecodeJpeg(jpegs_[i], {.channels = 3}))));
      EXPECT_EQ((*results[i])[1].scalar<int64_t>(), i);
    }
    ExpectStatus(results[1].status(), StatusCode::kDataLoss,
                 "map: decode_jpeg(image, channels=3, ratio=1, dct=accurate): component image: JPEG data: "
                 "Premature end of JPEG file");
  }
  DatasetPtr dropped = Ok(Result<DatasetPtr>(Records().Map(MakeDecodeImageFunction("image")).IgnoreErrors().Build()));
  std::vector<Element> kept = testing::Collect(dropped);
  ASSERT_EQ(kept.size(), 2u);
  EXPECT_EQ(kept[1][1].scalar<int64_t>(), 2);
}

// Decode errors name the element: its enumerate index, and where its bytes
// are in the TFRecord file the Example came from.
class DecodeErrorsFromRecordsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string good = Ok(EncodeJpeg(TestPicture(24, 32, 3)));
    std::string corrupt = good;
    corrupt[2] = '\0';  // a stray byte where the APP0 marker was
    jpegs_ = {good, good.substr(0, good.size() / 2), corrupt, ""};
    auto writer = Ok(RecordWriter::Open(file_));
    for (const std::string& jpeg : jpegs_) {
      tensorflow::Example example;
      (*example.mutable_features()->mutable_feature())["image/encoded"].mutable_bytes_list()->add_value(jpeg);
      ASSERT_TRUE(writer->WriteRecord(example.SerializeAsString()).ok());
    }
    ASSERT_TRUE(writer->Close().ok());
    // Each record's bytes, found after the previous record's (the truncated
    // image is a prefix of the good one).
    const std::string file_bytes = testing::ReadFileBytes(file_);
    size_t from = 0;
    for (const std::string& jpeg : jpegs_) {
      offsets_.push_back(file_bytes.find(jpeg, from));
      from = offsets_.back() + jpeg.size();
    }
  }
  Pipeline Enumerated() const {
    return Pipeline::TFRecord({.files = {file_}})
        .Map(MakeParseExampleFunction("", {{.key = "image/encoded", .dtype = DType::kString}}))
        .Enumerate();
  }
  // " (element index i; the bytes at byte offset N of FILE)" for image i.
  std::string Where(int i) const {
    return StrCat(" (element index ", i, "; the bytes at byte offset ", offsets_[i], " of ", file_, ")");
  }
  TempDir dir_;
  const std::string file_ = dir_.File("images.tfrecord");
  std::vector<std::string> jpegs_;
  std::vector<size_t> offsets_;
};

TEST_F(DecodeErrorsFromRecordsTest, NameTheElementIndexAndTheFileOffset) {
  const std::vector<ElementFunctionPtr> decoders = {
      Ok(MakeDecodeJpegFunction("image/encoded", {.channels = 3})), Ok(MakeDecodeImageFunction("image/encoded")),
      Ok(MakeDecodeJpegRandomCropFunction("image/encoded", {.height = 8, .width = 8}))};
  for (const ElementFunctionPtr& decoder : decoders) {
    SCOPED_TRACE(decoder->name());
    for (int64_t parallelism : {0, 2}) {
      std::vector<Result<Element>> results =
          CollectResults(testing::Build(Enumerated().Map(decoder, {.num_parallel_calls = parallelism})));
      ASSERT_EQ(results.size(), 4u);
      EXPECT_TRUE(results[0].ok()) << results[0].status();
      const std::string context = StrCat("map: ", decoder->name(), ": component image/encoded: ");
      const bool by_signature = decoder->name().starts_with("decode_image");
      ExpectStatus(results[1].status(), StatusCode::kDataLoss,
                   StrCat(context, "JPEG data: Premature end of JPEG file", Where(1)));
      // decode_image does not recognise the damaged signature: InvalidArgument, as tf.io.decode_image.
      EXPECT_EQ(results[2].status().code(), by_signature ? StatusCode::kInvalidArgument : StatusCode::kDataLoss)
          << results[2].status();
      EXPECT_TRUE(results[2].status().message().starts_with(context)) << results[2].status();
      EXPECT_TRUE(results[2].status().message().ends_with(Where(2))) << results[2].status();
      // No bytes, so no offset to name: the index alone.
      EXPECT_EQ(results[3].status().code(), StatusCode::kDataLoss) << results[3].status();
      EXPECT_TRUE(results[3].status().message().ends_with(
          by_signature ? "0 bytes) (element index 3)" : "JPEG data is empty (0 bytes) (element index 3)"))
          << results[3].status();
    }
    std::vector<Element> kept = testing::Collect(Enumerated().Map(decoder).IgnoreErrors());
    ASSERT_EQ(kept.size(), 1u);
    EXPECT_EQ(kept[0][0].scalar<int64_t>(), 0);
  }
}

TEST_F(DecodeErrorsFromRecordsTest, WithoutAnIndexOrARecordTheMessageIsTheDecodersOwn) {
  const Tensor copied = Tensor::FromVector<std::string>({jpegs_[1]});
  std::vector<Result<Element>> results =
      CollectResults(testing::Build(Pipeline::FromSlices({{"image", copied}}).Map(MakeDecodeJpegFunction("image"))));
  ASSERT_EQ(results.size(), 1u);
  ExpectStatus(results[0].status(), StatusCode::kDataLoss,
               "map: decode_jpeg(image, channels=0, ratio=1, dct=accurate): component image: JPEG data: Premature "
               "end of JPEG file");
  results = CollectResults(testing::Build(Pipeline::FromSlices({{"image", copied}}).Enumerate().Map(MakeDecodeJpegFunction("image"))));
  ASSERT_EQ(results.size(), 1u);
  EXPECT_TRUE(results[0].status().message().ends_with("Premature end of JPEG file (element index 0)")) << results[0].status();
}

TEST_F(DecodeFunctionsTest, SpecsRoundTrip) {
  const std::vector<ElementFunctionPtr> functions = {
      Ok(MakeDecodeJpegFunction("image", {.channels = 1, .ratio = 4, .dct_method = JpegDctMethod::kFast})),
      Ok(MakeDecodeJpegFunction("", {.max_pixels = 1000})),
      Ok(MakeDecodePngFunction("png", {.channels = 4})),
      Ok(MakeDecodeImageFunction("", {.channels = 3, .max_pixels = 5})),
  };
  for (const ElementFunctionPtr& fn : functions) testing::ExpectSpecRoundTrip(*fn);
  EXPECT_EQ(functions[1]->name(), "decode_jpeg(channels=0, ratio=1, dct=accurate, max_pixels=1000)");
}

TEST_F(DecodeFunctionsTest, TextSpecDefaultsAndErrors) {
  const Tensor records = Tensor::FromVector<std::string>({jpegs_[0]});
  spec::Pipeline pipeline = Ok(ParseSpecText(R"(
      ops { from_slices { components { name: "image" tensor { dtype: "string" shape: 1 string_values: "" } } } }
      ops { map { fn { decode_jpeg { component: "image" channels: 3 } } } })"));
  pipeline.mutable_ops(0)->mutable_from_slices()->mutable_components(0)->mutable_tensor()->set_string_values(0, jpegs_[0]);
  DatasetPtr dataset = Ok(DatasetFromSpec(pipeline));
  std::vector<Element> decoded = testing::Collect(dataset);
  ASSERT_EQ(decoded.size(), 1u);
  EXPECT_TRUE(decoded[0][0].Equals(Ok(DecodeJpeg(jpegs_[0], {.channels = 3}))));

  spec::ElementFunction bad_dct;
  bad_dct.mutable_decode_jpeg()->set_dct_method("float");
  ExpectStatus(ElementFunctionFromSpec(bad_dct).status(), StatusCode::kInvalidArgument,
               "decode_jpeg: dct_method: unknown DCT method 'float' (expected accurate or fast)");
  spec::ElementFunction bad_ratio;
  bad_ratio.mutable_decode_jpeg()->set_ratio(0);
  ExpectStatus(ElementFunctionFromSpec(bad_ratio).status(), StatusCode::kInvalidArgument,
               "decode_jpeg: ratio must be 1, 2, 4 or 8, got 0");
  spec::ElementFunction png;
  png.mutable_decode_png()->set_channels(1);
  EXPECT_EQ(Ok(ElementFunctionFromSpec(png))->name(), "decode_png(channels=1)");
}

}  // namespace
}  // namespace sluice
