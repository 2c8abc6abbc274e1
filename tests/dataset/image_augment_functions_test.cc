#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <set>
#include <vector>

#include "contract.h"
#include "function_spec_round_trip.h"
#include "ops/image_test_util.h"
#include "sluice/dataset/image_functions.h"
#include "sluice/dataset/pipeline.h"
#include "sluice/ops/crop_image.h"
#include "sluice/ops/solarize.h"

namespace sluice {
namespace {

using testing::ExpectStatus;
using testing::Ok;

constexpr int64_t kImages = 40;

// kImages small distinct images, enumerated: (index, image).
Pipeline EnumeratedImages(int64_t height = 6, int64_t width = 7, int64_t channels = 3) {
  return Pipeline::FromSlices({{"image", testing::TestPictures(kImages, height, width, channels)}}).Enumerate();
}

std::vector<Tensor> Images(const Pipeline& pipeline) {
  std::vector<Tensor> out;
  for (const Element& e : testing::Collect(pipeline)) out.push_back(e[1]);
  return out;
}

// The top (or left) a crop draws: uniform over the `count` places.
int64_t Place(double u, int64_t count) { return std::min(count - 1, static_cast<int64_t>(u * count)); }

// The 4x5 one-channel image 13 * i % 256.
Tensor Ramp() {
  std::vector<uint8_t> values(20);
  for (int i = 0; i < 20; ++i) values[i] = static_cast<uint8_t>(13 * i % 256);
  return Tensor::FromVector<uint8_t>(values, Shape{4, 5, 1});
}

// Each element's window is at the place its draws 0 and 1 pick, within the
// image padded by constant `fill` (built here pixel by pixel); the same at
// any parallelism; the places vary.
TEST(RandomCropFunction, CropsThePaddedImageWhereTheDrawsSay) {
  const std::vector<Tensor> originals = Images(EnumeratedImages());
  const RandomCropOptions options{.height = 5,
                                  .width = 6,
                                  .padding = {.top = 1, .bottom = 2, .left = 3, .right = 0},
                                  .fill = 9,
                                  .random = {.seed = 4, .index_component = "index"}};
  auto cropped = [&](int64_t parallelism) {
    return Images(
        EnumeratedImages().Map(MakeRandomCropFunction("image", options), {.num_parallel_calls = parallelism}));
  };
  const std::vector<Tensor> sequential = cropped(0), parallel = cropped(4);
  ASSERT_EQ(sequential.size(), originals.size());
  std::set<std::pair<int64_t, int64_t>> places;
  for (int64_t i = 0; i < kImages; ++i) {
    // The padded image: 9 x 10.
    Tensor padded = Tensor::Allocate(DType::kUInt8, Shape{9, 10, 3});
    for (int64_t y = 0; y < 9; ++y) {
      for (int64_t x = 0; x < 10; ++x) {
        const bool inside = y >= 1 && y < 7 && x >= 3;
        for (int64_t c = 0; c < 3; ++c) {
          padded.mutable_data<uint8_t>()[(y * 10 + x) * 3 + c] =
              inside ? originals[i].data<uint8_t>()[((y - 1) * 7 + x - 3) * 3 + c] : 9;
        }
      }
    }
    const UniformStream draws = ElementStream(4, i);
    const CropWindow window{.top = Place(draws(0), 5), .left = Place(draws(1), 5), .height = 5, .width = 6};
    places.insert({window.top, window.left});
    EXPECT_TRUE(sequential[i].Equals(Ok(CropImage(padded, window)))) << "element " << i;
    EXPECT_TRUE(parallel[i].Equals(sequential[i])) << "element " << i;
  }
  EXPECT_GT(places.size(), 10u);
}

// torchvision's RandomCrop(size=(8, 6), padding=1, pad_if_needed=True,
// padding_mode="reflect") pads the 4x5 image to 6x7, then that image by 2
// rows above and below, reflecting the padded image: these values.
TEST(RandomCropFunction, PadIfNeededPadsThePaddedImageAsTorchvision) {
  const std::vector<uint8_t> torchvision = {78,  65,  78,  91,  104, 117, 104, 13,  0,   13,  26,  39,  52,  39,
                                            78,  65,  78,  91,  104, 117, 104, 13,  0,   13,  26,  39,  52,  39,
                                            78,  65,  78,  91,  104, 117, 104, 143, 130, 143, 156, 169, 182, 169,
                                            208, 195, 208, 221, 234, 247, 234, 143, 130, 143, 156, 169, 182, 169,
                                            208, 195, 208, 221, 234, 247, 234, 143, 130, 143, 156, 169, 182, 169};
  const Tensor padded = Tensor::FromVector<uint8_t>(torchvision, Shape{10, 7, 1});
  const RandomCropOptions options{.height = 8,
                                  .width = 6,
                                  .padding = {1, 1, 1, 1},
                                  .pad_if_needed = true,
                                  .padding_mode = PaddingMode::kReflect,
                                  .random = {.seed = 5, .index_component = "i"}};
  std::set<std::pair<int64_t, int64_t>> places;
  for (int64_t i = 0; i < 12; ++i) {
    const Pipeline crop = Pipeline::FromTensors({{"i", Tensor::Scalar<int64_t>(i)}, {"image", Ramp()}})
                              .Map(MakeRandomCropFunction("image", options));
    const std::vector<Tensor> got = Images(crop);
    ASSERT_EQ(got.size(), 1u);
    const UniformStream draws = ElementStream(5, i);
    const CropWindow window{.top = Place(draws(0), 3), .left = Place(draws(1), 2), .height = 8, .width = 6};
    places.insert({window.top, window.left});
    EXPECT_TRUE(got[0].Equals(Ok(CropImage(padded, window)))) << "element " << i;
  }
  EXPECT_GT(places.size(), 2u);
}

TEST(RandomCropFunction, ErrorsAndSpecs) {
  ExpectStatus(MakeRandomCropFunction("", {.height = 0, .width = 3}).status(), StatusCode::kInvalidArgument,
               "random_crop: size must be positive, got [0, 3]");
  ExpectStatus(MakeRandomCropFunction("", {.height = 3, .width = 3, .padding = {.left = -1}}).status(),
               StatusCode::kInvalidArgument, "random_crop: padding must be in [0, 134217728], got [0, 0, -1, 0]");
  ExpectStatus(MakeRandomCropFunction("", {.height = int64_t{1} << 40, .width = 3}).status(),
               StatusCode::kResourceExhausted,
               "random_crop: the crop of 1099511627776x3 pixels exceeds the limit of 134217728 pixels");
  ExpectStatus(MakeRandomCropFunction("", {.height = int64_t{1} << 20, .width = 1}).status(),
               StatusCode::kInvalidArgument, "random_crop: crop sides must be at most 65535, got [1048576, 1]");
  ElementFunctionPtr fn = Ok(MakeRandomCropFunction("image", {.height = 4, .width = 4, .random = {.seed = 1}}));
  EXPECT_EQ(fn->name(), "random_crop(image, 4x4, seed=1)");
  const BoundElementFunction bound =
      Ok(fn->Bind({{"image", DType::kFloat32, PartialShape{-1, -1, 3}}, {"label", DType::kInt64, Shape{}}}));
  EXPECT_EQ(bound.output_spec[0].shape, (PartialShape{4, 4, 3}));
  EXPECT_EQ(bound.output_spec[0].dtype, DType::kFloat32);
  // An image smaller than the crop is that element's error, which names it.
  const Pipeline small = Pipeline::FromTensors({{"image", Ramp()}})
                             .Enumerate()
                             .Map(MakeRandomCropFunction("image", {.height = 5, .width = 5, .random = {.seed = 1}}));
  Result<std::optional<Element>> next = Ok(small.MakeIterator())->GetNext();
  ExpectStatus(next.status(), StatusCode::kInvalidArgument,
               "map: random_crop(image, 5x5, seed=1): component image: crop [5, 5] is larger than the image [4, 5] "
               "(element index 0)");
  const Pipeline reflect = Pipeline::FromTensors({{"image", Ramp()}})
                               .Enumerate()
                               .Map(MakeRandomCropFunction("image", {.height = 4,
                                                                     .width = 4,
                                                                     .padding = {.top = 4},
                                                                     .padding_mode = PaddingMode::kReflect,
                                                                     .random = {.seed = 1}}));
  ExpectStatus(Ok(reflect.MakeIterator())->GetNext().status(), StatusCode::kInvalidArgument,
               "map: random_crop(image, 4x4, padding=[4, 0, 0, 0], reflect, seed=1): component image: reflect "
               "padding of 4 needs a height of at least 5, got 4 (element index 0)");
  for (const ElementFunctionPtr& f :
       {fn,
        Ok(MakeRandomCropFunction("", {.height = 32,
                                      .width = 30,
                                      .padding = {1, 2, 3, 4},
                                      .pad_if_needed = true,
                                      .padding_mode = PaddingMode::kSymmetric,
                                      .random = {.index_component = "n"}})),
        Ok(MakeRandomCropFunction("x", {.height = 2, .width = 3, .padding = {4, 4, 4, 4}, .fill = 128}))}) {
    testing::ExpectSpecRoundTrip(*f);
  }
  EXPECT_EQ(Ok(MakeRandomCropFunction("x", {.height = 2, .width = 3, .padding = {4, 4, 4, 4}, .fill = 128}))->name(),
            "random_crop(x, 2x3, padding=[4, 4, 4, 4], constant, fill=128)");
}

// Each element is blurred with the sigma its draw 0 picks from the range, or
// with probability p; the same at any parallelism.
TEST(GaussianBlurFunction, BlursWithTheDrawnSigma) {
  const std::vector<Tensor> originals = Images(EnumeratedImages());
  const RandomGaussianBlurOptions options{.kernel_height = 5,
                                          .kernel_width = 3,
                                          .sigma_min = 0.5,
                                          .sigma_max = 3,
                                          .probability = 0.6,
                                          .random = {.seed = 6, .index_component = "index"}};
  auto blurred = [&](int64_t parallelism) {
    return Images(
        EnumeratedImages().Map(MakeGaussianBlurFunction("image", options), {.num_parallel_calls = parallelism}));
  };
  const std::vector<Tensor> sequential = blurred(0), parallel = blurred(3);
  ASSERT_EQ(sequential.size(), originals.size());
  int64_t applied = 0;
  for (int64_t i = 0; i < kImages; ++i) {
    const UniformStream draws = ElementStream(6, i);
    const double sigma = 0.5 + draws(0) * 2.5;
    const bool apply = draws(1) < 0.6;
    const Tensor want =
        apply ? Ok(GaussianBlur(originals[i],
                                {.kernel_height = 5, .kernel_width = 3, .sigma_y = sigma, .sigma_x = sigma}))
              : originals[i];
    EXPECT_TRUE(sequential[i].Equals(want)) << "element " << i;
    EXPECT_TRUE(parallel[i].Equals(sequential[i])) << "element " << i;
    applied += apply;
  }
  EXPECT_GT(applied, 0);
  EXPECT_LT(applied, kImages);
}

TEST(GaussianBlurFunction, ErrorsAndSpecs) {
  ExpectStatus(MakeGaussianBlurFunction("", {.kernel_height = 4, .kernel_width = 3}).status(),
               StatusCode::kInvalidArgument, "gaussian_blur: kernel size must be odd and in [1, 1023], got [4, 3]");
  ExpectStatus(
      MakeGaussianBlurFunction("", {.kernel_height = 3, .kernel_width = 3, .sigma_min = 2, .sigma_max = 1}).status(),
      StatusCode::kInvalidArgument, "gaussian_blur: sigma must be [min, max] with 0 < min <= max, finite, got [2, 1]");
  ExpectStatus(MakeGaussianBlurFunction("", {.kernel_height = 3, .kernel_width = 3, .probability = 2}).status(),
               StatusCode::kInvalidArgument, "gaussian_blur: probability must be in [0, 1], got 2");
  ElementFunctionPtr fn = Ok(MakeGaussianBlurFunction(
      "image", {.kernel_height = 23, .kernel_width = 23, .probability = 0.5, .random = {.seed = 3}}));
  EXPECT_EQ(fn->name(), "gaussian_blur(image, kernel=23x23, sigma=[0.1, 2], p=0.5, seed=3)");
  ExpectStatus(
      fn->Bind({{"image", DType::kInt32, Shape{30, 30, 3}}}).status(), StatusCode::kInvalidArgument,
      "gaussian_blur(image, kernel=23x23, sigma=[0.1, 2], p=0.5, seed=3): component image is int32[30, 30, 3]; "
      "expected a uint8 or float32 image");
  // An image too small for the kernel's reflect padding is that element's error.
  const Pipeline small = Pipeline::FromTensors({{"image", Ramp()}}).Enumerate().Map(fn);
  ExpectStatus(Ok(small.MakeIterator())->GetNext().status(), StatusCode::kInvalidArgument,
               "map: gaussian_blur(image, kernel=23x23, sigma=[0.1, 2], p=0.5, seed=3): component image: gaussian "
               "blur of kernel 23x23: reflect padding of 11 needs a height of at least 12, got 4 (element index 0)");
  for (const ElementFunctionPtr& f : {fn, Ok(MakeGaussianBlurFunction("", {.kernel_height = 3,
                                                                          .kernel_width = 7,
                                                                          .sigma_min = 1,
                                                                          .sigma_max = 1,
                                                                          .random = {.index_component = "n"}}))}) {
    testing::ExpectSpecRoundTrip(*f);
  }
}

// With probability p an element's image is solarized; the same at any
// parallelism; float images use max_value as white.
TEST(RandomSolarizeFunction, SolarizesTheElementsItDraws) {
  const std::vector<Tensor> originals = Images(EnumeratedImages());
  const RandomSolarizeOptions options{
      .threshold = 100, .probability = 0.4, .random = {.seed = 8, .index_component = "index"}};
  auto solarized = [&](int64_t parallelism) {
    return Images(
        EnumeratedImages().Map(MakeRandomSolarizeFunction("image", options), {.num_parallel_calls = parallelism}));
  };
  const std::vector<Tensor> sequential = solarized(0), parallel = solarized(2);
  int64_t applied = 0;
  for (int64_t i = 0; i < kImages; ++i) {
    const bool apply = ElementStream(8, i)(0) < 0.4;
    EXPECT_TRUE(sequential[i].Equals(apply ? Ok(Solarize(originals[i], 100, 255)) : originals[i])) << i;
    EXPECT_TRUE(parallel[i].Equals(sequential[i])) << "element " << i;
    applied += apply;
  }
  EXPECT_GT(applied, 0);
  EXPECT_LT(applied, kImages);
  const Tensor unit = Tensor::FromVector<float>({0.25f, 0.75f}, Shape{1, 2, 1});
  const std::vector<Tensor> floats =
      Images(Pipeline::FromTensors({{"image", unit}})
                 .Enumerate()
                 .Map(MakeRandomSolarizeFunction("image", {.threshold = 0.5, .probability = 1, .max_value = 1})));
  ASSERT_EQ(floats.size(), 1u);
  EXPECT_TRUE(floats[0].Equals(Tensor::FromVector<float>({0.25f, 0.25f}, Shape{1, 2, 1})));
}

TEST(RandomSolarizeFunction, ErrorsAndSpecs) {
  ExpectStatus(MakeRandomSolarizeFunction("", {.threshold = 300}).status(), StatusCode::kInvalidArgument,
               "random_solarize: threshold must be in [0, max_value = 255], got 300");
  ExpectStatus(MakeRandomSolarizeFunction("", {.probability = -1}).status(), StatusCode::kInvalidArgument,
               "random_solarize: probability must be in [0, 1], got -1");
  ElementFunctionPtr fn = Ok(MakeRandomSolarizeFunction("image", {.threshold = 300, .max_value = 1000}));
  const Pipeline uint8_image = Pipeline::FromTensors({{"image", Ramp()}}).Enumerate().Map(fn);
  ExpectStatus(Ok(uint8_image.MakeIterator())->GetNext().status(), StatusCode::kInvalidArgument,
               "map: random_solarize(image, threshold=300, p=0.5, max_value=1000): component image: threshold 300 is "
               "above a uint8 image's white, 255 (element index 0)");
  EXPECT_EQ(fn->name(), "random_solarize(image, threshold=300, p=0.5, max_value=1000)");
  for (const ElementFunctionPtr& f :
       {fn,
        Ok(MakeRandomSolarizeFunction(
            "",
            {.threshold = 0.5, .probability = 0.2, .max_value = 1, .random = {.seed = 2, .index_component = "n"}}))}) {
    testing::ExpectSpecRoundTrip(*f);
  }
}

// torchvision's RandomErasing: each erased element has one box of the drawn
// size and place holding the value (or normal values); the rest is kept.
TEST(RandomErasingFunction, ErasesOneBoxWhereTheDrawsSay) {
  const Tensor images = testing::TestPictures(kImages, 3, 40, 30);  // CHW [3, 40, 30] uint8
  const Pipeline input = Pipeline::FromSlices({{"image", images}}).Enumerate();
  const RandomErasingOptions options{
      .probability = 0.7, .value = {7, 8, 9}, .random = {.seed = 11, .index_component = "index"}};
  const std::vector<Tensor> erased = Images(input.Map(MakeRandomErasingFunction("image", options))),
                            parallel = Images(
                                input.Map(MakeRandomErasingFunction("image", options), {.num_parallel_calls = 3}));
  ASSERT_EQ(erased.size(), static_cast<size_t>(kImages));
  int64_t boxes = 0;
  for (int64_t i = 0; i < kImages; ++i) {
    SCOPED_TRACE(i);
    EXPECT_TRUE(parallel[i].Equals(erased[i]));
    const Tensor original = images.Row(i);
    const UniformStream draws = ElementStream(11, i);
    if (!(draws(0) < 0.7)) {
      EXPECT_TRUE(erased[i].Equals(original));
      continue;
    }
    // The first attempt whose box fits (torchvision's get_params).
    std::optional<CropWindow> box;
    for (int64_t a = 0; a < 10 && !box; ++a) {
      const double area = 1200 * (0.02 + draws(1 + 4 * a) * 0.31);
      const double aspect = std::exp(std::log(0.3) + draws(2 + 4 * a) * (std::log(3.3) - std::log(0.3)));
      const auto h = static_cast<int64_t>(std::nearbyint(std::sqrt(area * aspect)));
      const auto w = static_cast<int64_t>(std::nearbyint(std::sqrt(area / aspect)));
      if (h < 40 && w < 30) {
        box = CropWindow{.top = Place(draws(3 + 4 * a), 40 - h + 1),
                         .left = Place(draws(4 + 4 * a), 30 - w + 1),
                         .height = h,
                         .width = w};
      }
    }
    ASSERT_TRUE(box.has_value());
    ++boxes;
    for (int64_t c = 0; c < 3; ++c) {
      for (int64_t y = 0; y < 40; ++y) {
        for (int64_t x = 0; x < 30; ++x) {
          const bool inside =
              y >= box->top && y < box->top + box->height && x >= box->left && x < box->left + box->width;
          const int64_t at = (c * 40 + y) * 30 + x;
          ASSERT_EQ(erased[i].data<uint8_t>()[at], inside ? 7 + c : original.data<uint8_t>()[at]) << c << y << x;
        }
      }
    }
  }
  EXPECT_GT(boxes, 10);
}

TEST(RandomErasingFunction, RandomValuesAreStandardNormal) {
  const Tensor image = Tensor::Allocate(DType::kFloat32, Shape{3, 64, 64});
  const std::vector<Tensor> erased = Images(Pipeline::FromTensors({{"image", image}})
                                                .Enumerate()
                                                .Map(MakeRandomErasingFunction("image", {.probability = 1,
                                                                                         .scale_min = 0.3,
                                                                                         .scale_max = 0.3,
                                                                                         .ratio_min = 1,
                                                                                         .ratio_max = 1,
                                                                                         .random_value = true,
                                                                                         .random = {.seed = 1}})));
  ASSERT_EQ(erased.size(), 1u);
  double sum = 0, squares = 0, count = 0;
  for (int64_t i = 0; i < erased[0].NumElements(); ++i) {
    const double v = erased[0].data<float>()[i];
    if (v == 0) continue;
    sum += v;
    squares += v * v;
    ++count;
  }
  EXPECT_EQ(count, 3 * 35 * 35);  // round(sqrt(0.3 * 4096)) = 35
  EXPECT_NEAR(sum / count, 0, 0.05);
  EXPECT_NEAR(squares / count, 1, 0.05);
}

TEST(RandomErasingFunction, ErrorsAndSpecs) {
  ExpectStatus(MakeRandomErasingFunction("", {.scale_min = 0.5, .scale_max = 0.2}).status(),
               StatusCode::kInvalidArgument,
               "random_erasing: scale must be [min, max] with 0 < min <= max <= 1, got [0.5, 0.2]");
  ExpectStatus(MakeRandomErasingFunction("", {.ratio_min = 0}).status(), StatusCode::kInvalidArgument,
               "random_erasing: ratio must be [min, max] with 0 < min <= max, finite, got [0, 3.3]");
  ExpectStatus(MakeRandomErasingFunction("", {.value = {}}).status(), StatusCode::kInvalidArgument,
               "random_erasing: value is empty");
  ElementFunctionPtr fn = Ok(MakeRandomErasingFunction("image", {.value = {1, 2}, .random = {.seed = 3}}));
  EXPECT_EQ(fn->name(),
            "random_erasing(image, p=0.5, scale=[0.02, 0.33], ratio=[0.3, 3.3], value=[1, 2], CHW, seed=3)");
  const Pipeline three =
      Pipeline::FromTensors({{"image", Tensor::Allocate(DType::kFloat32, Shape{3, 8, 8})}}).Enumerate().Map(fn);
  ExpectStatus(Ok(three.MakeIterator())->GetNext().status(), StatusCode::kInvalidArgument,
               "map: random_erasing(image, p=0.5, scale=[0.02, 0.33], ratio=[0.3, 3.3], value=[1, 2], CHW, seed=3): "
               "component image: 2 values for an image of 3 channels (element index 0)");
  for (const ElementFunctionPtr& f : {fn, Ok(MakeRandomErasingFunction("", {.probability = 0.25,
                                                                           .random_value = true,
                                                                           .layout = ImageLayout::kHWC,
                                                                           .random = {.index_component = "n"}}))}) {
    testing::ExpectSpecRoundTrip(*f);
  }
}

}  // namespace
}  // namespace sluice
