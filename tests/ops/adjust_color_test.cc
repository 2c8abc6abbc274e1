#include "sluice/ops/adjust_color.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <limits>
#include <random>
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

// The hue step, one float pixel of [0, white] at a time, written plainly:
// std::max/min, branches, std::floor and the sector as an index.
std::array<float, 3> PlainHue(std::array<float, 3> pixel, float turn, float white) {
  const float r = pixel[0] / white, g = pixel[1] / white, b = pixel[2] / white;
  const float v = std::max({r, g, b});
  const float range = v - std::min({r, g, b});
  if (range == 0) return pixel;
  const float s = range / v;
  const float rc = (v - r) / range, gc = (v - g) / range, bc = (v - b) / range;
  float h = v == r ? bc - gc : v == g ? 2 + rc - bc : 4 + gc - rc;
  h = h / 6 + turn;
  h -= std::floor(h);
  const float h6 = h * 6;
  const int sector = static_cast<int>(std::floor(h6)) % 6;
  const float f = h6 - std::floor(h6);
  const float p = std::clamp(v * (1 - s), 0.0f, 1.0f);
  const float q = std::clamp(v * (1 - s * f), 0.0f, 1.0f);
  const float t = std::clamp(v * (1 - s * (1 - f)), 0.0f, 1.0f);
  const float rgb[6][3] = {{v, t, p}, {q, v, p}, {p, v, t}, {p, q, v}, {t, p, v}, {v, p, q}};
  return {rgb[sector][0] * white, rgb[sector][1] * white, rgb[sector][2] * white};
}

// Hue runs four pixels at a time in vector registers, and the rest one by
// one: every pixel, wherever it sits, must come out bit for bit as the plain
// formula gives it, for random pixels, greys, primaries and sector edges,
// at turns that wrap both ways.
TEST(AdjustColorTest, HueIsThePlainFormulaBitForBitInEveryPosition) {
  std::vector<float> values = {0,   0,   0,   255, 255, 255, 17, 17, 17, 255, 0, 0,   0, 255, 0,  0,  0, 255,
                               255, 255, 0,   0,   255, 255, 255, 0, 255, 1,  0, 0,   254, 255, 255, 128, 64, 64};
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> level(0, 255);
  while (values.size() < 3 * 101) values.push_back(std::round(level(rng) * 4) / 4);  // 101 pixels: a tail of 1
  for (const float white : {255.0f, 300.0f}) {
    for (const double turn : {-0.5, -0.27, 0.0, 0.1, 1.0 / 3, 0.5}) {
      SCOPED_TRACE(::testing::Message() << "white " << white << ", turn " << turn);
      const ColorAdjustment hue{kHue, turn};
      Result<Tensor> out = AdjustColor(Tensor::FromVector<float>(values, Shape{1, 101, 3}), {&hue, 1}, white);
      ASSERT_TRUE(out.ok()) << out.status();
      for (size_t i = 0; i < 101; ++i) {
        const std::array<float, 3> want =
            PlainHue({values[3 * i], values[3 * i + 1], values[3 * i + 2]}, static_cast<float>(turn), white);
        for (int c = 0; c < 3; ++c) {
          ASSERT_EQ(std::bit_cast<uint32_t>(out->data<float>()[3 * i + c]), std::bit_cast<uint32_t>(want[c]))
              << "pixel " << i << " channel " << c << ": " << out->data<float>()[3 * i + c] << " vs " << want[c];
        }
      }
    }
  }
}

// Pixel i of float RGB `values`, adjusted alone: an image of one pixel,
// which the one-pixel loops take.
std::array<float, 3> AdjustedAlone(const std::vector<float>& values, size_t i, const ColorAdjustment& adjustment) {
  const std::vector<float> pixel(values.begin() + 3 * i, values.begin() + 3 * i + 3);
  Result<Tensor> alone = AdjustColor(Tensor::FromVector<float>(pixel, Shape{1, 1, 3}), {&adjustment, 1});
  EXPECT_TRUE(alone.ok()) << alone.status();
  if (!alone.ok()) return {};
  return {alone->data<float>()[0], alone->data<float>()[1], alone->data<float>()[2]};
}

// Saturation runs four pixels at a time in vector registers too: each pixel
// of an image with a tail comes out bit for bit as it does alone (one pixel:
// the scalar loop), clamped at both ends.
TEST(AdjustColorTest, SaturationGivesEveryPixelItsValueAlone) {
  std::mt19937 rng(6);
  std::uniform_real_distribution<float> level(0, 255);
  std::vector<float> values;
  while (values.size() < 3 * 23) values.push_back(level(rng));
  for (const double factor : {0.0, 0.35, 1.0, 1.9, 4.0}) {
    const ColorAdjustment saturation{kSaturation, factor};
    Result<Tensor> out = AdjustColor(Tensor::FromVector<float>(values, Shape{1, 23, 3}), {&saturation, 1});
    ASSERT_TRUE(out.ok()) << out.status();
    for (size_t i = 0; i < 23; ++i) {
      const std::array<float, 3> alone = AdjustedAlone(values, i, saturation);
      for (int c = 0; c < 3; ++c) {
        const float got = out->data<float>()[3 * i + c], single = alone[c];
        ASSERT_EQ(std::bit_cast<uint32_t>(got), std::bit_cast<uint32_t>(single))
            << "factor " << factor << ", pixel " << i << " channel " << c << ": " << got << " vs " << single;
      }
    }
  }
}

// Pixels with NaN or infinite channels have no hue to speak of, but they
// must not pick a sector outside the six (an out-of-bounds read in an
// indexed formula), and they come out the same in a vector lane as alone;
// their finite neighbours are turned as usual.
TEST(AdjustColorTest, HueOfNonFinitePixelsIsTheSameInAVectorLaneAsAlone) {
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  const std::vector<float> values = {nan, 10, 20, 255, 0, 0,   inf, 0,  0, 5,   -inf, 7,
                                     0,   255, 0, 3,   2, nan, 9,   9,  inf, nan, nan, nan};
  const ColorAdjustment hue{kHue, 0.25};
  Result<Tensor> out = AdjustColor(Tensor::FromVector<float>(values, Shape{1, 8, 3}), {&hue, 1});
  ASSERT_TRUE(out.ok()) << out.status();
  for (size_t i = 0; i < 8; ++i) {
    const std::array<float, 3> alone = AdjustedAlone(values, i, hue);
    const float* pixel = &values[3 * i];
    const bool finite = std::isfinite(pixel[0]) && std::isfinite(pixel[1]) && std::isfinite(pixel[2]);
    for (int c = 0; c < 3; ++c) {
      const float got = out->data<float>()[3 * i + c], single = alone[c];
      EXPECT_TRUE(got == single || (std::isnan(got) && std::isnan(single)))
          << "pixel " << i << " channel " << c << ": " << got << " in a lane, " << single << " alone";
      if (finite) {
        EXPECT_EQ(got, PlainHue({pixel[0], pixel[1], pixel[2]}, 0.25f, 255)[c]) << "pixel " << i;
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
