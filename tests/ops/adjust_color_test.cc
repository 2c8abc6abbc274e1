#include "sluice/ops/adjust_color.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "ops/image_test_util.h"
#include "ops/op_test_util.h"

namespace sluice {
namespace {

using testing::ExpectInvalidArgument;
using testing::ExpectTensorNear;
using testing::TestPicture;

constexpr ColorProperty kBrightness = ColorProperty::kBrightness;
constexpr ColorProperty kContrast = ColorProperty::kContrast;
constexpr ColorProperty kSaturation = ColorProperty::kSaturation;
constexpr ColorProperty kHue = ColorProperty::kHue;

// The reference: torchvision's adjust_* formulas in double, with Python's
// colorsys RGB <-> HSV, on pixels of [0, 1].
using Pixels = std::vector<std::array<double, 3>>;

double Gray(const std::array<double, 3>& p) { return 0.2989 * p[0] + 0.587 * p[1] + 0.114 * p[2]; }

std::array<double, 3> RgbToHsv(const std::array<double, 3>& p) {
  const double r = p[0], g = p[1], b = p[2];
  const double maxc = std::max({r, g, b}), minc = std::min({r, g, b});
  if (maxc == minc) return {0, 0, maxc};
  const double range = maxc - minc, s = range / maxc;
  const double rc = (maxc - r) / range, gc = (maxc - g) / range, bc = (maxc - b) / range;
  const double h = r == maxc ? bc - gc : g == maxc ? 2 + rc - bc : 4 + gc - rc;
  return {h / 6 - std::floor(h / 6), s, maxc};
}

std::array<double, 3> HsvToRgb(const std::array<double, 3>& hsv) {
  const double h = hsv[0], s = hsv[1], v = hsv[2];
  if (s == 0) return {v, v, v};
  const int i = static_cast<int>(h * 6) % 6;
  const double f = h * 6 - std::floor(h * 6);
  const double p = v * (1 - s), q = v * (1 - s * f), t = v * (1 - s * (1 - f));
  switch (i) {
    case 0: return {v, t, p};
    case 1: return {q, v, p};
    case 2: return {p, v, t};
    case 3: return {p, q, v};
    case 4: return {t, p, v};
    default: return {v, p, q};
  }
}

void Reference(Pixels& pixels, const ColorAdjustment& a) {
  const double f = a.factor;
  double mean = 0;
  for (const auto& p : pixels) mean += Gray(p) / static_cast<double>(pixels.size());
  for (auto& p : pixels) {
    const double gray = Gray(p);
    if (a.property == kHue) {
      std::array<double, 3> hsv = RgbToHsv(p);
      hsv[0] = hsv[0] + f - std::floor(hsv[0] + f);
      p = HsvToRgb(hsv);
    }
    for (double& x : p) {
      if (a.property == kBrightness) x = f * x;
      if (a.property == kContrast) x = f * x + (1 - f) * mean;
      if (a.property == kSaturation) x = f * x + (1 - f) * gray;
      x = std::clamp(x, 0.0, 1.0);
    }
  }
}

// The reference result for an RGB uint8 picture, on the 0-255 scale.
Tensor ReferenceFloat(const Tensor& picture, const std::vector<ColorAdjustment>& adjustments) {
  Pixels pixels(picture.NumElements() / 3);
  for (size_t i = 0; i < pixels.size(); ++i) {
    for (int c = 0; c < 3; ++c) pixels[i][c] = picture.data<uint8_t>()[3 * i + c] / 255.0;
  }
  for (const ColorAdjustment& a : adjustments) Reference(pixels, a);
  std::vector<float> values;
  for (const auto& p : pixels) {
    for (double x : p) values.push_back(static_cast<float>(x * 255));
  }
  return Tensor::FromVector<float>(values, picture.shape());
}

Tensor ToFloat(const Tensor& t) {
  std::vector<float> values(t.data<uint8_t>(), t.data<uint8_t>() + t.NumElements());
  return Tensor::FromVector<float>(values, t.shape());
}

Tensor Rgb(std::vector<uint8_t> values) {
  const auto pixels = static_cast<int64_t>(values.size() / 3);
  return Tensor::FromVector<uint8_t>(std::move(values), Shape{1, pixels, 3});
}

TEST(AdjustColorTest, HueTurnsPrimariesIntoEachOther) {
  const Tensor red_yellow = Rgb({255, 0, 0, 255, 255, 0});
  const ColorAdjustment third{kHue, 1.0 / 3}, half{kHue, 0.5}, back{kHue, -1.0 / 3};
  EXPECT_TRUE(AdjustColor(red_yellow, {&third, 1})->Equals(Rgb({0, 255, 0, 0, 255, 255})));
  EXPECT_TRUE(AdjustColor(red_yellow, {&half, 1})->Equals(Rgb({0, 255, 255, 0, 0, 255})));
  EXPECT_TRUE(AdjustColor(red_yellow, {&back, 1})->Equals(Rgb({0, 0, 255, 255, 0, 255})));
}

TEST(AdjustColorTest, BrightnessContrastAndSaturationBlendAsTorchvision) {
  const ColorAdjustment brighter{kBrightness, 1.5};
  EXPECT_TRUE(AdjustColor(Rgb({100, 200, 20}), {&brighter, 1})->Equals(Rgb({150, 255, 30})));
  // One channel: contrast blends with the image's mean, 50.
  const Tensor gray = Tensor::FromVector<uint8_t>({0, 100}, Shape{1, 2, 1});
  const ColorAdjustment half_contrast{kContrast, 0.5};
  EXPECT_TRUE(AdjustColor(gray, {&half_contrast, 1})->Equals(Tensor::FromVector<uint8_t>({25, 75}, Shape{1, 2, 1})));
  // Saturation 0 is the grayscale 0.2989 R + 0.587 G + 0.114 B in every channel.
  const ColorAdjustment no_saturation{kSaturation, 0};
  ExpectTensorNear(AdjustColor(Tensor::FromVector<float>({200, 100, 50}, Shape{1, 1, 3}), {&no_saturation, 1}),
                   Tensor::FromVector<float>({124.18f, 124.18f, 124.18f}, Shape{1, 1, 3}), 1e-3);
}

// A uint8 image is adjusted as floats on the 0-255 scale and rounded as
// std::lround rounds (halves away from zero, which brightness 0.5 makes of
// every odd value), 16 values at a time: every value equals that of the
// same image as float32 with max_value 255, rounded, for sizes that leave a
// tail past the last 16.
TEST(AdjustColorTest, Uint8ImagesAreTheirFloatResultsRounded) {
  const std::vector<std::vector<ColorAdjustment>> cases = {
      {{kBrightness, 0.5}}, {{kBrightness, 1.37}}, {{kContrast, 0.45}}, {{kSaturation, 1.6}}, {{kHue, 0.27}},
      {{kBrightness, 1.3}, {kContrast, 0.6}, {kSaturation, 1.7}, {kHue, 0.21}}};
  for (const auto& [height, width] : std::vector<std::pair<int64_t, int64_t>>{{23, 31}, {4, 4}, {1, 5}}) {
    const Tensor picture = TestPicture(height, width, 3);
    for (const std::vector<ColorAdjustment>& adjustments : cases) {
      SCOPED_TRACE(::testing::Message() << height << "x" << width << ", " << adjustments.size()
                                        << " adjustment(s), the first " << adjustments[0].factor);
      const Tensor bytes = *AdjustColor(picture, adjustments);
      const Tensor floats = *AdjustColor(ToFloat(picture), adjustments, 255.0f);
      for (int64_t i = 0; i < bytes.NumElements(); ++i) {
        ASSERT_EQ(bytes.data<uint8_t>()[i], std::lround(floats.data<float>()[i])) << i;
      }
    }
  }
}

TEST(AdjustColorTest, FourStepsInEitherOrderMatchTheReference) {
  const Tensor picture = TestPicture(23, 31, 3);
  const std::vector<ColorAdjustment> orders[] = {
      {{kBrightness, 1.3}, {kContrast, 0.6}, {kSaturation, 1.7}, {kHue, 0.21}},
      {{kHue, -0.4}, {kSaturation, 0.3}, {kContrast, 1.8}, {kBrightness, 0.7}},
  };
  Tensor first;
  for (const std::vector<ColorAdjustment>& adjustments : orders) {
    const Tensor want = ReferenceFloat(picture, adjustments);
    ExpectTensorNear(AdjustColor(ToFloat(picture), adjustments), want, 2e-3);
    Result<Tensor> as_uint8 = AdjustColor(picture, adjustments);
    ASSERT_TRUE(as_uint8.ok()) << as_uint8.status();
    for (int64_t i = 0; i < picture.NumElements(); ++i) {
      ASSERT_NEAR(as_uint8->data<uint8_t>()[i], std::round(want.data<float>()[i]), 1) << "value " << i;
    }
    if (first.NumElements() == 0) {
      first = *as_uint8;
    } else {
      EXPECT_FALSE(first.Equals(*as_uint8)) << "the order of the steps changes the result";
    }
  }
}

TEST(AdjustColorTest, MaxValueSetsTheScaleOfFloatImages) {
  const std::vector<ColorAdjustment> adjustments = {{kBrightness, 1.2}, {kContrast, 0.8}, {kHue, 0.1}};
  const Tensor picture = ToFloat(TestPicture(5, 7, 3));
  std::vector<float> unit(picture.data<float>(), picture.data<float>() + picture.NumElements());
  for (float& x : unit) x /= 255;
  Result<Tensor> scaled = AdjustColor(Tensor::FromVector<float>(unit, picture.shape()), adjustments, 1.0f);
  ASSERT_TRUE(scaled.ok()) << scaled.status();
  Result<Tensor> full = AdjustColor(picture, adjustments);
  ASSERT_TRUE(full.ok()) << full.status();
  for (int64_t i = 0; i < picture.NumElements(); ++i) {
    EXPECT_NEAR(scaled->data<float>()[i] * 255, full->data<float>()[i], 1e-3) << "value " << i;
  }
}

TEST(AdjustColorTest, BatchesAdjustEachImageWithItsOwnMean) {
  const Tensor a = TestPicture(6, 4, 3, /*seed=*/1), b = TestPicture(6, 4, 3, /*seed=*/2);
  std::vector<uint8_t> both(a.data<uint8_t>(), a.data<uint8_t>() + a.NumElements());
  both.insert(both.end(), b.data<uint8_t>(), b.data<uint8_t>() + b.NumElements());
  const std::vector<ColorAdjustment> adjustments = {{kContrast, 0.4}, {kHue, 0.3}};
  Result<Tensor> batch = AdjustColor(Tensor::FromVector<uint8_t>(both, Shape{2, 6, 4, 3}), adjustments);
  ASSERT_TRUE(batch.ok()) << batch.status();
  Result<Tensor> first = AdjustColor(a, adjustments), second = AdjustColor(b, adjustments);
  ASSERT_TRUE(first.ok() && second.ok());
  EXPECT_TRUE(batch->Row(0).Equals(*first));
  EXPECT_TRUE(batch->Row(1).Equals(*second));
}

TEST(AdjustColorTest, SaturationAndHueLeaveGrayscaleImages) {
  const Tensor gray = TestPicture(4, 5, 1);
  const std::vector<ColorAdjustment> adjustments = {{kSaturation, 1.9}, {kHue, 0.45}};
  EXPECT_TRUE(AdjustColor(gray, adjustments)->Equals(gray));
}

TEST(AdjustColorTest, RejectsWhatItCannotAdjust) {
  const ColorAdjustment none{kBrightness, 1};
  ExpectInvalidArgument(AdjustColor(Tensor::Allocate(DType::kInt32, Shape{2, 2, 3}), {&none, 1}),
                        "expected a uint8 or float32 image, got int32");
  ExpectInvalidArgument(AdjustColor(Tensor::Allocate(DType::kUInt8, Shape{2, 2, 4}), {&none, 1}),
                        "expected 1 or 3 channels, got 4");
  ExpectInvalidArgument(AdjustColor(Tensor::Allocate(DType::kUInt8, Shape{2, 2}), {&none, 1}),
                        "expected an image [H, W, C] or a batch [N, H, W, C]");
  const ColorAdjustment too_far{kHue, 0.6}, negative{kSaturation, -0.1};
  ExpectInvalidArgument(AdjustColor(TestPicture(2, 2, 3), {&too_far, 1}), "a hue factor must be in [-0.5, 0.5], got 0.6");
  ExpectInvalidArgument(AdjustColor(TestPicture(2, 2, 3), {&negative, 1}), "a factor must be >= 0, got -0.1");
  ExpectInvalidArgument(AdjustColor(ToFloat(TestPicture(2, 2, 3)), {&none, 1}, 0.0f),
                        "max_value must be positive and finite, got 0");
}

}  // namespace
}  // namespace sluice
