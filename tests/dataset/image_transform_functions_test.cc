#include <gtest/gtest.h>

#include "contract.h"
#include "function_spec_round_trip.h"
#include "ops/image_test_util.h"
#include "sluice/dataset/builtin_functions.h"
#include "sluice/dataset/image_functions.h"
#include "sluice/dataset/pipeline.h"
#include "sluice/dataset/pipeline_spec.pb.h"
#include "sluice/dataset/pipeline_spec_io.h"
#include "sluice/ops/crop_image.h"

namespace sluice {
namespace {

using testing::ExpectStatus;
using testing::Ok;
using testing::TestPicture;

const std::vector<float> kMean = {123.675f, 116.28f, 103.53f};
const std::vector<float> kStd = {58.395f, 57.12f, 57.375f};

ElementSpec ImageSpec(PartialShape shape, DType dtype = DType::kUInt8) {
  return ElementSpec{{"image", dtype, std::move(shape)}, {"label", DType::kInt64, Shape{}}};
}

TEST(ImageTransformFunctions, OutputSpecsAreStatic) {
  struct Case {
    Result<ElementFunctionPtr> fn;
    PartialShape input;
    ComponentSpec want;
    bool row_wise;
  };
  Case cases[] = {
      {MakeResizeFunction("image", {.height = 8, .width = 6}), PartialShape{-1, -1, 3},
       {"image", DType::kFloat32, Shape{8, 6, 3}}, true},
      {MakeResizeFunction("image", {.height = 8, .width = 6, .method = ResizeMethod::kNearest}),
       PartialShape{-1, 10, 3, -1}, {"image", DType::kUInt8, PartialShape{-1, 8, 6, -1}}, false},
      {MakeCenterCropFunction("image", 4, 5), PartialShape{-1, -1, 3}, {"image", DType::kUInt8, Shape{4, 5, 3}}, true},
      {MakeCropMirrorNormalizeFunction("image", {.crop_height = 4, .crop_width = 5, .mean = kMean, .std = kStd}),
       PartialShape{-1, -1, 3}, {"image", DType::kFloat32, Shape{3, 4, 5}}, true},
      {MakeCropMirrorNormalizeFunction("image", {.layout = ImageLayout::kHWC, .dtype = DType::kFloat16}),
       PartialShape{7, -1, 1}, {"image", DType::kFloat16, PartialShape{7, -1, 1}}, true},
  };
  for (Case& c : cases) {
    ElementFunctionPtr fn = Ok(std::move(c.fn));
    SCOPED_TRACE(fn->name());
    BoundElementFunction bound = Ok(fn->Bind(ImageSpec(c.input)));
    EXPECT_EQ(bound.output_spec, (ElementSpec{c.want, {"label", DType::kInt64, Shape{}}}));
    EXPECT_EQ(bound.row_wise, c.row_wise);
  }
}

TEST(ImageTransformFunctions, BindNamesTheFunctionAndComponent) {
  ElementFunctionPtr resize = Ok(MakeResizeFunction("image", {.height = 2, .width = 2, .antialias = true}));
  EXPECT_EQ(resize->name(), "resize(image, 2x2, bilinear, antialias)");
  ExpectStatus(resize->Bind(ImageSpec(PartialShape{4, 4})).status(), StatusCode::kInvalidArgument,
               "resize(image, 2x2, bilinear, antialias): component image is uint8[4, 4]; expected a numeric "
               "image [H, W, C] or a batch [N, H, W, C]");
  ElementFunctionPtr crop = Ok(MakeCenterCropFunction("image", 5, 5));
  ExpectStatus(crop->Bind(ImageSpec(PartialShape{4, -1, 3})).status(), StatusCode::kInvalidArgument,
               "center_crop(image, 5x5): component image: crop [5, 5] is larger than the image [4, -1]");
  ElementFunctionPtr cmn = Ok(MakeCropMirrorNormalizeFunction("image", {.mean = kMean, .mirror = true}));
  EXPECT_EQ(cmn->name(), "crop_mirror_normalize(image, mean=[123.675, 116.28, 103.53], std=[1], mirror, CHW, float32)");
  ExpectStatus(cmn->Bind(ImageSpec(PartialShape{4, 4, 1})).status(), StatusCode::kInvalidArgument,
               "crop_mirror_normalize(image, mean=[123.675, 116.28, 103.53], std=[1], mirror, CHW, float32): "
               "component image: mean has 3 values for an image of 1 channels (expected 1 or 1)");
  ExpectStatus(MakeResizeFunction("", {.height = 0, .width = 3}).status(), StatusCode::kInvalidArgument,
               "resize: size must be positive, got [0, 3]");
  ExpectStatus(MakeCenterCropFunction("", 3, -1).status(), StatusCode::kInvalidArgument,
               "center_crop: size must be positive, got [3, -1]");
  ExpectStatus(MakeCropMirrorNormalizeFunction("", {.std = {0}}).status(), StatusCode::kInvalidArgument,
               "crop_mirror_normalize: std must not be 0");
}

// decode -> resize -> center_crop -> crop_mirror_normalize -> batch, at
// parallelism 1 and 3, against the kernels applied by hand.
TEST(ImageTransformFunctions, PipelineEqualsTheKernels) {
  testing::TempDir dir;
  std::vector<std::string> jpegs;
  for (int i = 0; i < 5; ++i) jpegs.push_back(testing::CjpegEncode(dir, TestPicture(30 + 3 * i, 41 - i, 3, i), "-sample 2x2"));
  const ResizeOptions resize{.height = 20, .width = 24, .antialias = true};
  const CropMirrorNormalizeOptions cmn{.crop_height = 12, .crop_width = 12, .mean = kMean, .std = kStd, .mirror = true};
  std::vector<Tensor> want;
  for (const std::string& jpeg : jpegs) {
    const Tensor resized = Ok(ResizeImage(Ok(DecodeJpeg(jpeg, {.channels = 3})), resize));
    const Tensor cropped = Ok(CropImage(resized, Ok(CenterCropWindow(20, 24, 16, 16))));
    want.push_back(Ok(CropMirrorNormalize(cropped, cmn)));
  }
  for (int64_t parallelism : {0, 3}) {
    SCOPED_TRACE(parallelism);
    const MapOptions map{.num_parallel_calls = parallelism};
    Pipeline pipeline = Pipeline::FromSlices({{"image", Tensor::FromVector<std::string>(jpegs)}})
                            .Map(MakeDecodeJpegFunction("image", {.channels = 3}), map)
                            .Map(MakeResizeFunction("image", resize), map)
                            .Map(MakeCenterCropFunction("image", 16, 16), map)
                            .Map(MakeCropMirrorNormalizeFunction("image", cmn), map)
                            .Batch({.batch_size = 2});
    DatasetPtr dataset = testing::Build(pipeline);
    EXPECT_EQ(dataset->element_spec(), (ElementSpec{{"image", DType::kFloat32, PartialShape{-1, 3, 12, 12}}}));
    std::vector<Element> batches = testing::Collect(dataset);
    ASSERT_EQ(batches.size(), 3u);
    for (size_t i = 0; i < jpegs.size(); ++i) {
      EXPECT_TRUE(batches[i / 2][0].Row(static_cast<int64_t>(i % 2)).Equals(want[i])) << "image " << i;
    }
    // The whole pipeline survives its spec.
    DatasetPtr again = Ok(DatasetFromSpec(Ok(DatasetToSpec(*dataset))));
    std::vector<Element> batches_again = testing::Collect(again);
    ASSERT_EQ(batches_again.size(), 3u);
    EXPECT_TRUE(batches_again[2][0].Equals(batches[2][0]));
  }
}

// Rows of a batch [N, H, W, C] are transformed as the single images are, so
// map may pass whole runs.
TEST(ImageTransformFunctions, BatchesTransformEachImage) {
  Tensor batch = Tensor::Allocate(DType::kUInt8, Shape{2, 9, 10, 3});
  CopyIntoRows(TestPicture(9, 10, 3, 1), batch, 0);
  CopyIntoRows(TestPicture(9, 10, 3, 2), batch, 1);
  const ElementSpec single{{"", DType::kUInt8, Shape{9, 10, 3}}};
  const ElementSpec batched{{"", DType::kUInt8, Shape{2, 9, 10, 3}}};
  const std::vector<ElementFunctionPtr> functions = {
      Ok(MakeResizeFunction("", {.height = 5, .width = 4, .method = ResizeMethod::kArea})),
      Ok(MakeCenterCropFunction("", 3, 7)),
      Ok(MakeCropMirrorNormalizeFunction("", {.crop_height = 8, .crop_width = 8, .mean = {10}, .mirror = true})),
  };
  for (const ElementFunctionPtr& fn : functions) {
    SCOPED_TRACE(fn->name());
    Element whole = Ok(Ok(fn->Bind(batched)).apply(Element{batch}));
    for (int64_t i = 0; i < 2; ++i) {
      Element one = Ok(Ok(fn->Bind(single)).apply(Element{batch.Row(i)}));
      EXPECT_TRUE(whole[0].Row(i).Equals(one[0]));
    }
  }
}

TEST(ImageTransformFunctions, TooSmallImageIsAnErrorForThatElement) {
  // Bound to a spec of unknown height and width, so that only the element can tell.
  std::vector<Tensor> images = {Tensor::Allocate(DType::kUInt8, Shape{6, 6, 1}), Tensor::Allocate(DType::kUInt8, Shape{2, 6, 1})};
  ElementFunctionPtr crop = Ok(MakeCenterCropFunction("image", 4, 4));
  BoundElementFunction bound = Ok(crop->Bind(ImageSpec(PartialShape{-1, -1, 1})));
  EXPECT_TRUE(bound.apply(Element{images[0], Tensor::Scalar<int64_t>(0)}).ok());
  ExpectStatus(bound.apply(Element{images[1], Tensor::Scalar<int64_t>(1)}).status(), StatusCode::kInvalidArgument,
               "center_crop(image, 4x4): component image: crop [4, 4] is larger than the image [2, 6]");
}

TEST(ImageTransformFunctions, SpecsRoundTrip) {
  const std::vector<ElementFunctionPtr> functions = {
      Ok(MakeResizeFunction("image", {.height = 224, .width = 200, .method = ResizeMethod::kArea})),
      Ok(MakeResizeFunction("", {.height = 1, .width = 2, .antialias = true})),
      Ok(MakeCenterCropFunction("x", 224, 224)),
      Ok(MakeCropMirrorNormalizeFunction("image", {.crop_height = 224, .crop_width = 224, .mean = kMean,
                                                   .std = kStd, .mirror = true, .dtype = DType::kFloat16})),
      Ok(MakeCropMirrorNormalizeFunction("", {.layout = ImageLayout::kHWC})),
  };
  for (const ElementFunctionPtr& fn : functions) testing::ExpectSpecRoundTrip(*fn);

  spec::Pipeline pipeline = Ok(ParseSpecText(R"(
      ops { from_slices { components { name: "image" tensor { dtype: "uint8" shape: [2, 4, 4, 1] int_values: [
          0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0] } } } }
      ops { map { fn { resize { component: "image" size: [2, 2] method: "nearest" } } } }
      ops { map { fn { crop_mirror_normalize { component: "image" mean: 1 std: 2 layout: "HWC" } } } })"));
  std::vector<Element> out = testing::Collect(Ok(DatasetFromSpec(pipeline)));
  ASSERT_EQ(out.size(), 2u);
  EXPECT_TRUE(out[0][0].Equals(Tensor::FromVector<float>({2, 3, 6, 7}, Shape{2, 2, 1})));

  spec::ElementFunction bad;
  bad.mutable_resize()->add_size(3);
  ExpectStatus(ElementFunctionFromSpec(bad).status(), StatusCode::kInvalidArgument,
               "resize: size must be [height, width], got 1 values");
  bad.mutable_resize()->add_size(3);
  bad.mutable_resize()->set_method("lanczos3");
  ExpectStatus(ElementFunctionFromSpec(bad).status(), StatusCode::kInvalidArgument,
               "resize: method: unknown resize method 'lanczos3' (expected bilinear, nearest, area or bicubic)");
  spec::ElementFunction layout;
  layout.mutable_crop_mirror_normalize()->set_layout("NCHW");
  ExpectStatus(ElementFunctionFromSpec(layout).status(), StatusCode::kInvalidArgument,
               "crop_mirror_normalize: layout: unknown layout 'NCHW' (expected HWC or CHW)");
}

}  // namespace
}  // namespace sluice
