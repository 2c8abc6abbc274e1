#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "contract.h"
#include "function_spec_round_trip.h"
#include "ops/image_test_util.h"
#include "sluice/dataset/builtin_functions.h"
#include "sluice/dataset/image_functions.h"
#include "sluice/dataset/pipeline.h"
#include "sluice/dataset/pipeline_spec.pb.h"
#include "sluice/ops/jpeg_crop_scale.h"

namespace sluice {
namespace {

using testing::ExpectStatus;
using testing::Ok;
using testing::TestPicture;

constexpr int64_t kImages = 48;

// kImages small distinct images, enumerated: (index, image).
Pipeline EnumeratedImages() {
  return Pipeline::FromSlices({{"image", testing::TestPictures(kImages, 4, 5, 3)}}).Enumerate();
}

std::vector<Tensor> Images(const Pipeline& pipeline) {
  std::vector<Tensor> out;
  for (const Element& e : testing::Collect(pipeline)) out.push_back(e[1]);
  return out;
}

TEST(RandomFlipFunction, DrawsFromTheSeedAndTheElementIndexOnly) {
  const std::vector<Tensor> originals = Images(EnumeratedImages());
  auto flipped = [&](uint64_t seed, int64_t parallelism) {
    return Images(EnumeratedImages().Map(MakeRandomFlipFunction("image", {.random = {.seed = seed, .index_component = "index"}}),
                                         {.num_parallel_calls = parallelism}));
  };
  const std::vector<Tensor> sequential = flipped(7, 0);
  ASSERT_EQ(sequential.size(), originals.size());
  int64_t flips = 0;
  for (int64_t i = 0; i < kImages; ++i) {
    const bool flip = ElementStream(7, i)(0) < 0.5;
    const Tensor want = flip ? Ok(FlipImage(originals[i], FlipDirection::kLeftRight)) : originals[i];
    EXPECT_TRUE(sequential[i].Equals(want)) << "element " << i;
    flips += flip;
  }
  EXPECT_GT(flips, 0);
  EXPECT_LT(flips, kImages);
  const std::vector<Tensor> parallel = flipped(7, 4);
  for (int64_t i = 0; i < kImages; ++i) EXPECT_TRUE(parallel[i].Equals(sequential[i])) << "element " << i;
  const std::vector<Tensor> other_seed = flipped(8, 0);
  int64_t differ = 0;
  for (int64_t i = 0; i < kImages; ++i) differ += !other_seed[i].Equals(sequential[i]);
  EXPECT_GT(differ, 0);
}

TEST(RandomFlipFunction, ProbabilityZeroAndOne) {
  const std::vector<Tensor> originals = Images(EnumeratedImages());
  const std::vector<Tensor> never = Images(EnumeratedImages().Map(MakeRandomFlipFunction("image", {.probability = 0})));
  const std::vector<Tensor> always = Images(
      EnumeratedImages().Map(MakeRandomFlipFunction("image", {.direction = FlipDirection::kUpDown, .probability = 1})));
  for (int64_t i = 0; i < kImages; ++i) {
    EXPECT_TRUE(never[i].Equals(originals[i]));
    EXPECT_TRUE(always[i].Equals(Ok(FlipImage(originals[i], FlipDirection::kUpDown))));
  }
}

TEST(RandomFlipFunction, RestoredIteratorDrawsTheSame) {
  testing::ExpectResumesEverywhere(
      [] { return EnumeratedImages().Map(MakeRandomFlipFunction("image", {.random = {.seed = 3}})); });
  testing::ExpectResumesEverywhere([] {
    return EnumeratedImages().Map(MakeRandomFlipFunction("", {.random = {.seed = 3, .index_component = "index"}}));
  });
}

TEST(RandomFlipFunction, BindNeedsTheIndex) {
  ElementFunctionPtr flip = Ok(MakeRandomFlipFunction("image", {.random = {.seed = 5, .index_component = "index"}}));
  EXPECT_EQ(flip->name(), "random_flip(image, left_right, p=0.5, seed=5, index=index)");
  ExpectStatus(flip->Bind({{"image", DType::kUInt8, Shape{2, 2, 3}}}).status(), StatusCode::kInvalidArgument,
               "random_flip(image, left_right, p=0.5, seed=5, index=index): the element index: no "
               "component named 'index' in element spec (image: uint8[2, 2, 3])");
  ExpectStatus(flip->Bind({{"index", DType::kInt32, Shape{}}, {"image", DType::kUInt8, Shape{2, 2, 3}}}).status(),
               StatusCode::kInvalidArgument,
               "random_flip(image, left_right, p=0.5, seed=5, index=index): the element index index is int32[]; "
               "expected an int64 scalar");
  ExpectStatus(flip->Bind({{"index", DType::kInt64, Shape{}}, {"image", DType::kString, Shape{}}}).status(),
               StatusCode::kInvalidArgument,
               "random_flip(image, left_right, p=0.5, seed=5, index=index): component image is string[]; expected a "
               "numeric image [H, W, C] or a batch [N, H, W, C]");
  ExpectStatus(MakeRandomFlipFunction("", {.probability = 1.5}).status(), StatusCode::kInvalidArgument,
               "random_flip: probability must be in [0, 1], got 1.5");
  BoundElementFunction bound = Ok(Ok(MakeRandomFlipFunction("", {.random = {.index_component = "i"}}))
                                      ->Bind({{"i", DType::kInt64, Shape{}}, {"x", DType::kUInt8, Shape{1, 1, 1}}}));
  EXPECT_FALSE(bound.row_wise);
}

// The fused decode + random-resized crop without the scaled IDCT equals the
// steps one at a time: the window by torchvision's rule from the element's
// stream, the full decode cropped to it, resized with antialias.
TEST(DecodeJpegRandomCropFunction, EqualsDecodeCropResize) {
  testing::TempDir dir;
  std::vector<std::string> jpegs;
  for (int i = 0; i < 6; ++i) jpegs.push_back(testing::CjpegEncode(dir, TestPicture(60 + 7 * i, 80 - 5 * i, 3, i), "-sample 2x2"));
  for (const ResizeMethod method : {ResizeMethod::kBilinear, ResizeMethod::kBicubic, ResizeMethod::kNearest}) {
    SCOPED_TRACE(ResizeMethodName(method));
    const DecodeJpegRandomCropOptions options{.height = 24, .width = 20, .method = method, .scaled_idct = false,
                                              .random = {.seed = 11, .index_component = "index"}};
    std::vector<Tensor> want;
    for (int64_t i = 0; i < 6; ++i) {
      const Tensor full = Ok(DecodeJpeg(jpegs[i], {.channels = 3}));
      const CropWindow window = RandomResizedCropWindow(full.dim(0), full.dim(1), options.crop, ElementStream(11, i));
      want.push_back(Ok(ResizeImage(Ok(CropImage(full, window)),
                                    {.height = 24, .width = 20, .method = method, .antialias = true})));
    }
    const DType dtype = method == ResizeMethod::kNearest ? DType::kUInt8 : DType::kFloat32;
    for (int64_t parallelism : {0, 3}) {
      SCOPED_TRACE(parallelism);
      Pipeline pipeline =
          Pipeline::FromSlices({{"jpeg", Tensor::FromVector<std::string>(jpegs)}})
              .Enumerate()
              .Map(MakeDecodeJpegRandomCropFunction("jpeg", options), {.num_parallel_calls = parallelism})
              .Batch({.batch_size = 3});
      DatasetPtr dataset = testing::Build(pipeline);
      EXPECT_EQ(dataset->element_spec()[1], (ComponentSpec{"jpeg", dtype, PartialShape{-1, 24, 20, 3}}));
      std::vector<Element> batches = testing::Collect(dataset);
      ASSERT_EQ(batches.size(), 2u);
      for (int64_t i = 0; i < 6; ++i) EXPECT_TRUE(batches[i / 3][1].Row(i % 3).Equals(want[i])) << "image " << i;
    }
  }
}

// A photograph-like uint8 RGB picture: gradients, a soft texture and a
// little noise (TestPicture's wrapping gradients and checkerboard are
// sharper than photographs).
Tensor SmoothPicture(int64_t height, int64_t width, uint32_t seed) {
  Tensor t = Tensor::Allocate(DType::kUInt8, Shape{height, width, 3});
  uint8_t* p = t.mutable_data<uint8_t>();
  uint32_t state = seed * 2654435761u + 1;
  for (int64_t y = 0; y < height; ++y) {
    for (int64_t x = 0; x < width; ++x) {
      const double texture = 30 * std::sin((x + 3.0 * seed) / 9.0) * std::cos(y / 13.0);
      const double base[3] = {200.0 * x / width, 200.0 * y / height, 100 + 60 * std::sin((x + y) / 40.0)};
      for (double channel : base) {
        state = state * 1664525u + 1013904223u;
        *p++ = static_cast<uint8_t>(std::clamp(channel + texture + static_cast<double>(state >> 29), 0.0, 255.0));
      }
    }
  }
  return t;
}

// The mean absolute difference of two float32 images of one shape.
double MeanAbsDiff(const Tensor& a, const Tensor& b) {
  double sum = 0;
  for (int64_t k = 0; k < a.NumElements(); ++k) sum += std::abs(a.data<float>()[k] - b.data<float>()[k]);
  return sum / static_cast<double>(a.NumElements());
}

// With the scaled IDCT (the default), each window larger than the output is
// decoded at the scale JpegCropScale picks, then resized: the output equals
// those steps one at a time, has the same shape as without the scaled IDCT,
// and its pixels are within a mean absolute difference of 3 levels (of 255)
// of the full-size window's resize, per photograph-like image (0.6-2.6 seen;
// sharp synthetic patterns, as TestPicture's, differ by up to ~15).
TEST(DecodeJpegRandomCropFunction, ScaledIdctIsCloseToTheFullSizeWindow) {
  testing::TempDir dir;
  constexpr int64_t kCount = 8;
  std::vector<std::string> jpegs;
  for (int i = 0; i < kCount; ++i) {
    jpegs.push_back(testing::CjpegEncode(dir, SmoothPicture(150 + 9 * i, 190 - 7 * i, i), "-quality 90 -sample 2x2"));
  }
  const DecodeJpegRandomCropOptions scaled{.height = 24, .width = 20, .random = {.seed = 5, .index_component = "index"}};
  DecodeJpegRandomCropOptions unscaled = scaled;
  unscaled.scaled_idct = false;
  auto run = [&](const DecodeJpegRandomCropOptions& options) {
    Pipeline pipeline = Pipeline::FromSlices({{"jpeg", Tensor::FromVector<std::string>(jpegs)}})
                            .Enumerate()
                            .Map(MakeDecodeJpegRandomCropFunction("jpeg", options), {.num_parallel_calls = 2});
    std::vector<Tensor> out;
    for (const Element& element : testing::Collect(testing::Build(pipeline))) out.push_back(element[1]);
    return out;
  };
  const std::vector<Tensor> got = run(scaled), full = run(unscaled);
  ASSERT_EQ(got.size(), static_cast<size_t>(kCount));
  ASSERT_EQ(full.size(), static_cast<size_t>(kCount));
  int scaled_windows = 0;
  for (int64_t i = 0; i < kCount; ++i) {
    SCOPED_TRACE(::testing::Message() << "image " << i);
    CropWindow window;
    const CropResizeTarget target{.height = 24, .width = 20};
    const Tensor decoded = Ok(DecodeJpegCrop(
        jpegs[i],
        [&](int64_t height, int64_t width) -> Result<CropWindow> {
          window = RandomResizedCropWindow(height, width, scaled.crop, ElementStream(5, i));
          return window;
        },
        {.channels = 3}, target));
    if (JpegCropScale(window, 24, 20) < 8) ++scaled_windows;
    EXPECT_TRUE(got[i].Equals(Ok(ResizeImage(decoded, {.height = 24, .width = 20, .antialias = true}))));
    EXPECT_EQ(got[i].shape(), (Shape{24, 20, 3}));
    EXPECT_EQ(got[i].shape(), full[i].shape());
    EXPECT_LE(MeanAbsDiff(got[i], full[i]), 3.0);
  }
  EXPECT_GE(scaled_windows, kCount / 2);  // the case is mostly scaled windows
}

TEST(DecodeJpegRandomCropFunction, ErrorsAndSpecs) {
  spec::ElementFunction cubic_spec;
  cubic_spec.mutable_decode_jpeg_random_crop()->set_method("cubic");
  ExpectStatus(ElementFunctionFromSpec(cubic_spec).status(), StatusCode::kInvalidArgument,
               "decode_jpeg_random_crop: method: unknown resize method 'cubic' (expected bilinear, nearest, area or "
               "bicubic)");
  ExpectStatus(MakeDecodeJpegRandomCropFunction("", {.height = 0}).status(), StatusCode::kInvalidArgument,
               "decode_jpeg_random_crop: size must be positive, got [0, 224]");
  ExpectStatus(MakeDecodeJpegRandomCropFunction("", {.decode = {.ratio = 2}}).status(), StatusCode::kInvalidArgument,
               "decode_jpeg_random_crop: the decode ratio must be 1, got 2");
  ExpectStatus(MakeDecodeJpegRandomCropFunction("", {.crop = {.attempts = 0}}).status(), StatusCode::kInvalidArgument,
               "decode_jpeg_random_crop: attempts must be in [1, 1000], got 0");
  ElementFunctionPtr fn = Ok(MakeDecodeJpegRandomCropFunction("jpeg", {.random = {.seed = 1, .index_component = "index"}}));
  Element corrupt = Element{Tensor::Scalar<int64_t>(0), Tensor::Scalar("\xFF\xD8\xFF not really")};
  BoundElementFunction bound = Ok(fn->Bind({{"index", DType::kInt64, Shape{}}, {"jpeg", DType::kString, Shape{}}}));
  Result<Element> out = bound.apply(corrupt);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), StatusCode::kDataLoss) << out.status();
  EXPECT_NE(out.status().message().find(fn->name() + ": component jpeg: JPEG data: "), std::string::npos) << out.status();
  EXPECT_NE(out.status().message().find("(element index 0)"), std::string::npos) << out.status();

  for (const ElementFunctionPtr& f :
       {fn, Ok(MakeDecodeJpegRandomCropFunction("", {.height = 32, .width = 16,
                                                     .crop = {.scale_min = 0.25, .ratio_max = 2, .attempts = 3},
                                                     .method = ResizeMethod::kBicubic, .scaled_idct = false,
                                                     .decode = {.channels = 1, .dct_method = JpegDctMethod::kFast},
                                                     .random = {.seed = 9, .index_component = "n"}})),
        Ok(MakeRandomFlipFunction("x", {.direction = FlipDirection::kUpDown, .probability = 0.25, .random = {.seed = 4}}))}) {
    testing::ExpectSpecRoundTrip(*f);
  }
}

TEST(ColorJitterFunction, DrawsFromTheSeedAndTheElementIndexOnly) {
  const std::vector<Tensor> originals = Images(EnumeratedImages());
  const ColorJitterOptions options{
      .brightness = 0.4, .contrast = 0.4, .saturation = 0.4, .hue = 0.1,
      .random = {.seed = 11, .index_component = "index"}};
  auto jittered = [&](int64_t parallelism) {
    return Images(EnumeratedImages().Map(MakeColorJitterFunction("image", options), {.num_parallel_calls = parallelism}));
  };
  const std::vector<Tensor> sequential = jittered(0), parallel = jittered(4);
  ASSERT_EQ(sequential.size(), originals.size());
  for (int64_t i = 0; i < kImages; ++i) {
    const std::vector<ColorAdjustment> steps = DrawColorJitter(options, ElementStream(11, i));
    ASSERT_EQ(steps.size(), 4u);
    EXPECT_TRUE(sequential[i].Equals(Ok(AdjustColor(originals[i], steps)))) << "element " << i;
    EXPECT_TRUE(parallel[i].Equals(sequential[i])) << "element " << i;
    EXPECT_FALSE(sequential[i].Equals(originals[i])) << "element " << i;
  }
}

TEST(ColorJitterFunction, FactorsAndOrdersFollowTorchvisionsRanges) {
  const ColorJitterOptions options{.brightness = 0.5, .contrast = 1.5, .saturation = 0.2, .hue = 0.3};
  std::set<std::vector<ColorProperty>> orders;
  for (int64_t i = 0; i < 400; ++i) {
    const std::vector<ColorAdjustment> steps = DrawColorJitter(options, ElementStream(5, i));
    ASSERT_EQ(steps.size(), 4u);
    std::vector<ColorProperty> order;
    for (const ColorAdjustment& step : steps) {
      order.push_back(step.property);
      const auto [low, high] = [&]() -> std::pair<double, double> {
        switch (step.property) {
          case ColorProperty::kBrightness: return {0.5, 1.5};
          case ColorProperty::kContrast: return {0, 2.5};  // max(0, 1 - 1.5)
          case ColorProperty::kSaturation: return {0.8, 1.2};
          case ColorProperty::kHue: break;
        }
        return {-0.3, 0.3};
      }();
      EXPECT_GE(step.factor, low);
      EXPECT_LE(step.factor, high);
    }
    std::vector<ColorProperty> sorted = order;
    std::sort(sorted.begin(), sorted.end());
    EXPECT_EQ(std::adjacent_find(sorted.begin(), sorted.end()), sorted.end()) << "each step once";
    orders.insert(order);
  }
  EXPECT_EQ(orders.size(), 24u) << "every order of the four steps occurs";
  // A parameter of 0 leaves its step out; the others keep their draws.
  const std::vector<ColorAdjustment> all = DrawColorJitter(options, ElementStream(5, 0));
  const std::vector<ColorAdjustment> hue_only = DrawColorJitter({.hue = 0.3}, ElementStream(5, 0));
  ASSERT_EQ(hue_only.size(), 1u);
  for (const ColorAdjustment& step : all) {
    if (step.property == ColorProperty::kHue) {
      EXPECT_EQ(step.factor, hue_only[0].factor);
    }
  }
}

// probability < 1 is torchvision's RandomApply: an element whose draw 8 is
// not below it comes out as it went in; the others are jittered with the
// steps they draw at probability 1.
TEST(ColorJitterFunction, ProbabilityAppliesTheJitterToSomeElements) {
  const std::vector<Tensor> originals = Images(EnumeratedImages());
  ColorJitterOptions options{.brightness = 0.4, .contrast = 0.4, .saturation = 0.4, .hue = 0.1,
                             .probability = 0.6, .random = {.seed = 12, .index_component = "index"}};
  const std::vector<Tensor> out = Images(EnumeratedImages().Map(MakeColorJitterFunction("image", options)));
  ASSERT_EQ(out.size(), originals.size());
  int64_t jittered = 0;
  for (int64_t i = 0; i < kImages; ++i) {
    const bool apply = ElementStream(12, i)(8) < 0.6;
    ColorJitterOptions always = options;
    always.probability = 1;
    const Tensor want = apply ? Ok(AdjustColor(originals[i], DrawColorJitter(always, ElementStream(12, i))))
                              : originals[i];
    EXPECT_TRUE(out[i].Equals(want)) << "element " << i << (apply ? ", jittered" : ", left as it is");
    EXPECT_EQ(DrawColorJitter(options, ElementStream(12, i)).empty(), !apply) << "element " << i;
    jittered += apply;
  }
  EXPECT_GT(jittered, 0);
  EXPECT_LT(jittered, kImages);
  options.probability = 0;
  const std::vector<Tensor> never = Images(EnumeratedImages().Map(MakeColorJitterFunction("image", options)));
  for (int64_t i = 0; i < kImages; ++i) EXPECT_TRUE(never[i].Equals(originals[i])) << "element " << i;
}

TEST(ColorJitterFunction, ErrorsAndSpecs) {
  ExpectStatus(MakeColorJitterFunction("", {.contrast = -1}).status(), StatusCode::kInvalidArgument,
               "color_jitter: contrast must be finite and >= 0, got -1");
  ExpectStatus(MakeColorJitterFunction("", {.hue = 0.6}).status(), StatusCode::kInvalidArgument,
               "color_jitter: hue must be in [0, 0.5], got 0.6");
  ExpectStatus(MakeColorJitterFunction("", {.max_value = 0}).status(), StatusCode::kInvalidArgument,
               "color_jitter: max_value must be positive and finite, got 0");
  ExpectStatus(MakeColorJitterFunction("", {.probability = 1.5}).status(), StatusCode::kInvalidArgument,
               "color_jitter: probability must be in [0, 1], got 1.5");
  ElementFunctionPtr fn = Ok(MakeColorJitterFunction("image", {.brightness = 0.2, .hue = 0.05, .random = {.seed = 2}}));
  EXPECT_EQ(fn->name(), "color_jitter(image, brightness=0.2, contrast=0, saturation=0, hue=0.05, seed=2)");
  ExpectStatus(fn->Bind({{"index", DType::kInt64, Shape{}}, {"image", DType::kInt32, Shape{2, 2, 3}}}).status(),
               StatusCode::kInvalidArgument,
               "color_jitter(image, brightness=0.2, contrast=0, saturation=0, hue=0.05, seed=2): component image is "
               "int32[2, 2, 3]; expected a uint8 or float32 image of 1 or 3 channels");
  ExpectStatus(fn->Bind({{"index", DType::kInt64, Shape{}}, {"image", DType::kUInt8, Shape{2, 2, 4}}}).status(),
               StatusCode::kInvalidArgument,
               "color_jitter(image, brightness=0.2, contrast=0, saturation=0, hue=0.05, seed=2): component image is "
               "uint8[2, 2, 4]; expected a uint8 or float32 image of 1 or 3 channels");
  BoundElementFunction bound =
      Ok(fn->Bind({{"index", DType::kInt64, Shape{}}, {"image", DType::kFloat32, PartialShape{-1, -1, 3}}}));
  EXPECT_FALSE(bound.row_wise);
  for (const ElementFunctionPtr& f :
       {fn, Ok(MakeColorJitterFunction("", {.brightness = 0.4, .contrast = 0.3, .saturation = 0.2, .hue = 0.5,
                                            .max_value = 1, .random = {.seed = 3, .index_component = "n"}})),
        Ok(MakeColorJitterFunction("", {.brightness = 0.8, .probability = 0.8, .random = {.seed = 4}}))}) {
    testing::ExpectSpecRoundTrip(*f);
  }
}

// With probability p, an element's image becomes its grayscale in every
// channel (adjust_color's saturation 0); the draw is the element stream's
// first, so the same at any parallelism. One-channel images stay as they are.
TEST(RandomGrayscaleFunction, GraysTheElementsItDraws) {
  const std::vector<Tensor> originals = Images(EnumeratedImages());
  auto grayed = [](double probability, int64_t parallelism) {
    const RandomGrayscaleOptions options{.probability = probability, .random = {.seed = 9, .index_component = "index"}};
    return Images(
        EnumeratedImages().Map(MakeRandomGrayscaleFunction("image", options), {.num_parallel_calls = parallelism}));
  };
  const std::vector<Tensor> sequential = grayed(0.3, 0), parallel = grayed(0.3, 4);
  ASSERT_EQ(sequential.size(), originals.size());
  const ColorAdjustment gray{ColorProperty::kSaturation, 0};
  int64_t grays = 0;
  for (int64_t i = 0; i < kImages; ++i) {
    const bool apply = ElementStream(9, i)(0) < 0.3;
    const Tensor want = apply ? Ok(AdjustColor(originals[i], {&gray, 1})) : originals[i];
    EXPECT_TRUE(sequential[i].Equals(want)) << "element " << i;
    EXPECT_TRUE(parallel[i].Equals(sequential[i])) << "element " << i;
    if (apply) {
      const uint8_t* pixels = sequential[i].data<uint8_t>();
      for (int64_t p = 0; p < sequential[i].NumElements(); p += 3) {
        ASSERT_EQ(pixels[p], pixels[p + 1]);
        ASSERT_EQ(pixels[p], pixels[p + 2]);
      }
    }
    grays += apply;
  }
  EXPECT_GT(grays, 0);
  EXPECT_LT(grays, kImages);
  const std::vector<Tensor> always = grayed(1, 2), never = grayed(0, 2);
  for (int64_t i = 0; i < kImages; ++i) {
    EXPECT_TRUE(always[i].Equals(Ok(AdjustColor(originals[i], {&gray, 1})))) << "element " << i;
    EXPECT_TRUE(never[i].Equals(originals[i])) << "element " << i;
  }
  const Tensor one_channel = TestPicture(4, 5, 1);
  const std::vector<Tensor> kept = Images(Pipeline::FromTensors({{"image", one_channel}}).Enumerate().Map(
      MakeRandomGrayscaleFunction("image", {.probability = 1, .random = {.seed = 1}})));
  ASSERT_EQ(kept.size(), 1u);
  EXPECT_TRUE(kept[0].Equals(one_channel));
}

TEST(RandomGrayscaleFunction, ErrorsAndSpecs) {
  ExpectStatus(MakeRandomGrayscaleFunction("", {.probability = -0.5}).status(), StatusCode::kInvalidArgument,
               "random_grayscale: probability must be in [0, 1], got -0.5");
  ExpectStatus(MakeRandomGrayscaleFunction("", {.max_value = 0}).status(), StatusCode::kInvalidArgument,
               "random_grayscale: max_value must be positive and finite, got 0");
  ElementFunctionPtr fn = Ok(MakeRandomGrayscaleFunction("image", {.probability = 0.2, .random = {.seed = 2}}));
  EXPECT_EQ(fn->name(), "random_grayscale(image, p=0.2, seed=2)");
  ExpectStatus(fn->Bind({{"index", DType::kInt64, Shape{}}, {"image", DType::kUInt8, Shape{2, 2, 4}}}).status(),
               StatusCode::kInvalidArgument,
               "random_grayscale(image, p=0.2, seed=2): component image is uint8[2, 2, 4]; expected a uint8 or "
               "float32 image of 1 or 3 channels");
  EXPECT_FALSE(Ok(fn->Bind({{"image", DType::kFloat32, PartialShape{-1, -1, 3}}})).row_wise);
  for (const ElementFunctionPtr& f :
       {fn, Ok(MakeRandomGrayscaleFunction("", {.probability = 1, .max_value = 1,
                                                .random = {.seed = 3, .index_component = "n"}}))}) {
    testing::ExpectSpecRoundTrip(*f);
  }
}

}  // namespace
}  // namespace sluice
