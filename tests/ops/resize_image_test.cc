#include "sluice/ops/resize_image.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "ops/image_test_util.h"
#include "ops/op_test_util.h"

namespace sluice {
namespace {

using testing::ExpectTensorNear;

constexpr double kTolerance = 1e-5;

// A [1, w, 1] float image from a row of values.
Tensor Row(const std::vector<float>& values) {
  return Tensor::FromVector<float>(values, Shape{1, static_cast<int64_t>(values.size()), 1});
}

Tensor Resized(const Tensor& image, ResizeOptions options) {
  Result<Tensor> out = ResizeImage(image, options);
  EXPECT_TRUE(out.ok()) << out.status();
  return out.ok() ? *out : Tensor();
}

// tf.image.resize's documentation: the 5x5 identity resized to [3, 5] with
// bilinear (half-pixel centres).
TEST(ResizeImage, DocumentedBilinearIdentity) {
  std::vector<float> identity(25, 0.0f);
  for (int i = 0; i < 5; ++i) identity[i * 5 + i] = 1.0f;
  const Tensor image = Tensor::FromVector<float>(identity, Shape{5, 5, 1});
  const float third = 1.0f / 3, two_thirds = 2.0f / 3;
  ExpectTensorNear(ResizeImage(image, {.height = 3, .width = 5}),
                   Tensor::FromVector<float>({two_thirds, third, 0, 0, 0,  //
                                              0, 0, 1, 0, 0,               //
                                              0, 0, 0, third, two_thirds},
                                             Shape{3, 5, 1}),
                   kTolerance);
}

// Values worked out by hand from the sampling rules in resize_image.h.
TEST(ResizeImage, BilinearHalfPixelCentres) {
  // Enlarging [0, 4] to 4: samples at -0.25 (clamped), 0.25, 0.75, 1.25 (clamped).
  ExpectTensorNear(ResizeImage(Row({0, 4}), {.height = 1, .width = 4}), Row({0, 1, 3, 4}), kTolerance);
  // Halving [0, 1, 2, 3]: samples at 0.5 and 2.5.
  ExpectTensorNear(ResizeImage(Row({0, 1, 2, 3}), {.height = 1, .width = 2}), Row({0.5, 2.5}), kTolerance);
  // Enlarging: antialias changes nothing.
  const Tensor picture = testing::TestPicture(7, 5, 3);
  ExpectTensorNear(ResizeImage(picture, {.height = 12, .width = 11, .antialias = true}),
                   Resized(picture, {.height = 12, .width = 11}), 1e-3);
}

TEST(ResizeImage, AntialiasWidensTheKernelWhenShrinking) {
  // [0, 1, 2, 3] to 2: samples at 1 and 3 with a triangle of radius 2, weights
  // (3, 3, 1) / 7 over inputs 0..2 and (1, 3, 3) / 7 over inputs 1..3.
  ExpectTensorNear(ResizeImage(Row({0, 1, 2, 3}), {.height = 1, .width = 2, .antialias = true}),
                   Row({5.0f / 7, 16.0f / 7}), kTolerance);
}

TEST(ResizeImage, AreaAveragesTheCoveredInput) {
  ExpectTensorNear(ResizeImage(Row({0, 1, 2, 3}), {.height = 1, .width = 2, .method = ResizeMethod::kArea}),
                   Row({0.5, 2.5}), kTolerance);
  // 3 to 2: [0, 1.5) is p0 + p1 / 2, [1.5, 3) is p1 / 2 + p2, each over 1.5.
  ExpectTensorNear(ResizeImage(Row({0, 3, 6}), {.height = 1, .width = 2, .method = ResizeMethod::kArea}),
                   Row({1, 5}), kTolerance);
  // Enlarging by 2 repeats pixels.
  ExpectTensorNear(ResizeImage(Row({1, 5}), {.height = 1, .width = 4, .method = ResizeMethod::kArea}),
                   Row({1, 1, 5, 5}), kTolerance);
}

// Antialiased bicubic against torch.nn.functional.interpolate(mode="bicubic",
// antialias=True, align_corners=False), PIL's bicubic (Keys, a = -0.5, the
// kernel widened when shrinking, weights renormalised at the edges), on the
// 5x7 image (x * 37 + y * 23) % 101: shrunk to 3x4 and 2x3, enlarged to 6x9
// (its first two and last rows checked: the edges and the overshoot).
TEST(ResizeImage, AntialiasedBicubicMatchesTorchAndPil) {
  std::vector<float> values;
  for (int y = 0; y < 5; ++y) {
    for (int x = 0; x < 7; ++x) values.push_back(static_cast<float>((x * 37 + y * 23) % 101));
  }
  const Tensor image = Tensor::FromVector<float>(values, Shape{5, 7, 1});
  const auto bicubic = [&](int64_t height, int64_t width) {
    return ResizeImage(image, {.height = height, .width = width, .method = ResizeMethod::kBicubic, .antialias = true});
  };
  ExpectTensorNear(bicubic(3, 4),
                   Tensor::FromVector<float>({28.3140f, 60.5532f, 44.7816f, 39.4806f,   //
                                              52.5925f, 50.3873f, 59.3086f, 49.7602f,   //
                                              54.0906f, 39.2025f, 36.6383f, 54.8186f},  //
                                             Shape{3, 4, 1}),
                   2e-3);
  ExpectTensorNear(bicubic(2, 3),
                   Tensor::FromVector<float>({45.1594f, 53.8428f, 44.8399f,  //
                                              49.9324f, 43.7428f, 52.2867f},
                                             Shape{2, 3, 1}),
                   2e-3);
  const Tensor enlarged = *bicubic(6, 9);
  const std::vector<std::pair<int64_t, std::vector<float>>> rows = {
      {0, {-2.6005f, 21.6153f, 58.1373f, 63.7779f, 9.1510f, 35.7385f, 76.0119f, 68.0186f, 15.9449f}},
      {1, {14.5768f, 38.2969f, 78.6841f, 87.1516f, 26.3282f, 58.3190f, 40.6490f, 23.4188f, 37.0213f}},
      {5, {95.8786f, 46.7776f, 44.1125f, 55.7548f, -1.8792f, 27.9660f, 66.7921f, 56.7221f, 4.9147f}},
  };
  for (const auto& [y, want] : rows) {
    for (int64_t x = 0; x < 9; ++x) EXPECT_NEAR(enlarged.data<float>()[y * 9 + x], want[x], 2e-3) << y << ", " << x;
  }
}

// Without antialias, TensorFlow's ResizeBicubic: the kernel's values at the
// sample's fraction rounded to 1/1024. A cubic convolution reproduces a
// linear ramp away from the edges, so each output there is its sample
// position (x + 0.5) * 10 / 25 - 0.5 with the fraction rounded: the rounding
// is visible (up to 1/2048) at this tolerance.
TEST(ResizeImage, BicubicWithoutAntialiasRoundsTheFractionAsTensorFlow) {
  std::vector<float> ramp(10);
  for (int i = 0; i < 10; ++i) ramp[i] = static_cast<float>(i);
  const Tensor out = Resized(Row(ramp), {.height = 1, .width = 25, .method = ResizeMethod::kBicubic});
  int64_t checked = 0, rounded = 0;
  for (int64_t x = 0; x < 25; ++x) {
    const float sample = (static_cast<float>(x) + 0.5f) * 0.4f - 0.5f;
    const float floor = std::floor(sample);
    if (floor < 1 || floor > 7) continue;  // a tap past an edge
    const double want = floor + static_cast<double>(std::lrint((sample - floor) * 1024)) / 1024;
    EXPECT_NEAR(out.data<float>()[x], want, 1e-5) << "x = " << x;
    ++checked;
    rounded += std::abs(want - sample) > 1e-4;
  }
  EXPECT_GE(checked, 15);
  EXPECT_GT(rounded, 0) << "some samples are not on the 1/1024 grid";
}

TEST(ResizeImage, NearestKeepsTheDtype) {
  const Tensor image = Tensor::FromVector<uint8_t>({0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
                                                   Shape{4, 4, 1});
  // Shrinking by 2 picks floor((x + 0.5) * 2) = 1, 3.
  Result<Tensor> half = ResizeImage(image, {.height = 2, .width = 2, .method = ResizeMethod::kNearest});
  ASSERT_TRUE(half.ok()) << half.status();
  EXPECT_TRUE(half->Equals(Tensor::FromVector<uint8_t>({5, 7, 13, 15}, Shape{2, 2, 1})));
  // Enlarging [a, b] to 4 picks floor((x + 0.5) / 2) = 0, 0, 1, 1.
  Result<Tensor> wide = ResizeImage(Tensor::FromVector<int32_t>({-3, 9}, Shape{1, 2, 1}),
                                    {.height = 1, .width = 4, .method = ResizeMethod::kNearest});
  ASSERT_TRUE(wide.ok()) << wide.status();
  EXPECT_TRUE(wide->Equals(Tensor::FromVector<int32_t>({-3, -3, 9, 9}, Shape{1, 4, 1})));
}

TEST(ResizeImage, Uint8InputGivesFloat32AndBatchesResizeEachImage) {
  const Tensor a = testing::TestPicture(9, 13, 3, 1), b = testing::TestPicture(9, 13, 3, 2);
  for (ResizeMethod method : {ResizeMethod::kBilinear, ResizeMethod::kArea, ResizeMethod::kNearest}) {
    SCOPED_TRACE(ResizeMethodName(method));
    const ResizeOptions options{.height = 4, .width = 6, .method = method, .antialias = true};
    const Tensor ra = Resized(a, options), rb = Resized(b, options);
    EXPECT_EQ(ra.dtype(), ResizeOutputDType(DType::kUInt8, method));
    Tensor batch = Tensor::Allocate(DType::kUInt8, Shape{2, 9, 13, 3});
    CopyIntoRows(a, batch, 0);
    CopyIntoRows(b, batch, 1);
    const Tensor rbatch = Resized(batch, options);
    ASSERT_EQ(rbatch.shape(), (Shape{2, 4, 6, 3}));
    EXPECT_TRUE(rbatch.Row(0).Equals(ra));
    EXPECT_TRUE(rbatch.Row(1).Equals(rb));
  }
  // A constant image stays constant under every filter.
  Tensor flat = Tensor::Allocate(DType::kUInt8, Shape{10, 7, 2});
  std::fill_n(flat.mutable_data<uint8_t>(), flat.NumElements(), 200);
  for (ResizeMethod method : {ResizeMethod::kBilinear, ResizeMethod::kArea}) {
    const Tensor out = Resized(flat, {.height = 3, .width = 11, .method = method, .antialias = true});
    for (int64_t i = 0; i < out.NumElements(); ++i) ASSERT_NEAR(out.data<float>()[i], 200.0f, 1e-3) << i;
  }
}

// Keys' cubic convolution kernel, a = -0.5.
double KeysCubic(double x) {
  x = std::abs(x);
  return x >= 2 ? 0.0 : x >= 1 ? ((-0.5 * x + 2.5) * x - 4) * x + 2 : (1.5 * x - 2.5) * x * x + 1;
}

// A straightforward reference for the bilinear (triangle), area and bicubic
// filters: every input pixel's weight for every output, in double, from the
// rules in resize_image.h, applied along x and then y without spans or
// trimming. (Bicubic without antialias rounds the sample's fraction to
// 1/1024 from the sample in float, as TensorFlow computes it.)
std::vector<double> ReferenceWeights(int64_t in, int64_t out, ResizeMethod method, bool antialias) {
  std::vector<double> weights(out * in, 0.0);
  const double scale = static_cast<double>(in) / static_cast<double>(out);  // input per output
  for (int64_t x = 0; x < out; ++x) {
    double* w = &weights[x * in];
    if (method == ResizeMethod::kArea) {
      for (int64_t i = 0; i < in; ++i) {
        const double overlap = std::min((x + 1) * scale, i + 1.0) - std::max(x * scale, double(i));
        w[i] = std::max(0.0, overlap) / scale;
      }
      continue;
    }
    double total = 0.0;
    if (method == ResizeMethod::kBicubic && !antialias) {
      const float sample = (static_cast<float>(x) + 0.5f) * (static_cast<float>(in) / static_cast<float>(out)) - 0.5f;
      const float floor = std::floor(sample);
      const double fraction = static_cast<double>(std::lrint((sample - floor) * 1024)) / 1024;
      for (int64_t k = -1; k <= 2; ++k) {
        const auto i = static_cast<int64_t>(floor) + k;
        if (i < 0 || i >= in) continue;
        w[i] = KeysCubic(k - fraction);
        total += w[i];
      }
    } else {
      const double width = antialias ? std::max(scale, 1.0) : 1.0;
      const double sample = (x + 0.5) * scale;
      for (int64_t i = 0; i < in; ++i) {
        const double distance = (i + 0.5 - sample) / width;
        w[i] = method == ResizeMethod::kBicubic ? KeysCubic(distance) : std::max(0.0, 1.0 - std::abs(distance));
        total += w[i];
      }
    }
    for (int64_t i = 0; i < in; ++i) w[i] /= total;
  }
  return weights;
}

std::vector<double> ReferenceResize(const std::vector<double>& image, int64_t n, int64_t in_h,
                                    int64_t in_w, int64_t channels, const ResizeOptions& options) {
  const int64_t out_h = options.height, out_w = options.width;
  const std::vector<double> wy = ReferenceWeights(in_h, out_h, options.method, options.antialias);
  const std::vector<double> wx = ReferenceWeights(in_w, out_w, options.method, options.antialias);
  std::vector<double> out(n * out_h * out_w * channels, 0.0);
  std::vector<double> rows(in_h * out_w * channels);
  for (int64_t b = 0; b < n; ++b) {
    const double* in = &image[b * in_h * in_w * channels];
    std::fill(rows.begin(), rows.end(), 0.0);
    for (int64_t y = 0; y < in_h; ++y) {
      for (int64_t x = 0; x < out_w; ++x) {
        for (int64_t i = 0; i < in_w; ++i) {
          for (int64_t c = 0; c < channels; ++c) {
            rows[(y * out_w + x) * channels + c] += wx[x * in_w + i] * in[(y * in_w + i) * channels + c];
          }
        }
      }
    }
    double* dst = &out[b * out_h * out_w * channels];
    for (int64_t y = 0; y < out_h; ++y) {
      for (int64_t j = 0; j < in_h; ++j) {
        for (int64_t k = 0; k < out_w * channels; ++k) {
          dst[y * out_w * channels + k] += wy[y * in_h + j] * rows[j * out_w * channels + k];
        }
      }
    }
  }
  return out;
}

// The kernel against the reference over random sizes (enlarging and
// shrinking, down to 1 pixel and by large factors), channels 1..4, batches,
// uint8 and float inputs, bilinear and bicubic with and without antialias,
// and area.
TEST(ResizeImage, MatchesAStraightforwardReference) {
  std::mt19937 random(20);
  const auto uniform = [&](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(random);
  };
  for (int trial = 0; trial < 320; ++trial) {
    const bool large = trial % 16 == 0;
    const int64_t n = uniform(1, 2), in_h = uniform(1, large ? 200 : 24),
                  in_w = uniform(1, large ? 200 : 24), channels = uniform(1, 4);
    const ResizeOptions options{.height = uniform(1, 24), .width = uniform(1, 24),
                                .method = std::array{ResizeMethod::kBilinear, ResizeMethod::kBilinear,
                                                     ResizeMethod::kArea, ResizeMethod::kBicubic}[trial % 4],
                                .antialias = trial % 2 == 0};
    const bool uint8 = trial % 4 < 2;
    const Shape shape{n, in_h, in_w, channels};
    std::vector<double> values(shape.NumElements());
    Tensor image = Tensor::Allocate(uint8 ? DType::kUInt8 : DType::kFloat32, shape);
    for (int64_t i = 0; i < shape.NumElements(); ++i) {
      if (uint8) {
        image.mutable_data<uint8_t>()[i] = static_cast<uint8_t>(uniform(0, 255));
        values[i] = image.data<uint8_t>()[i];
      } else {
        image.mutable_data<float>()[i] = std::uniform_real_distribution<float>(-1, 1)(random);
        values[i] = image.data<float>()[i];
      }
    }
    SCOPED_TRACE(::testing::Message() << "trial " << trial << ": " << shape << " to [" << options.height << ", "
                                    << options.width << "] " << ResizeMethodName(options.method)
                                    << (options.antialias ? " antialias" : "") << (uint8 ? " uint8" : " float"));
    const Tensor got = Resized(image, options);
    const std::vector<double> want = ReferenceResize(values, n, in_h, in_w, channels, options);
    ASSERT_EQ(got.shape(), (Shape{n, options.height, options.width, channels}));
    const double range = uint8 ? 255.0 : 1.0;
    for (int64_t i = 0; i < got.NumElements(); ++i) {
      ASSERT_NEAR(got.data<float>()[i], want[i], 1e-5 * std::max(range, std::abs(want[i]))) << "element " << i;
    }
  }
}

// Nearest-neighbour copies whole pixels, of every size (those of 1, 3 and 4
// channels of uint8 and float32 by a copy of known size): each output pixel
// is the input pixel at min(floor((i + 0.5) * in / out), in - 1) on each
// axis, in float.
TEST(ResizeImage, NearestCopiesTheNearestPixelOfEverySize) {
  const auto nearest = [](int64_t i, int64_t in, int64_t out) {
    const float scale = static_cast<float>(in) / static_cast<float>(out);
    return std::min(static_cast<int64_t>(std::floor((static_cast<float>(i) + 0.5f) * scale)), in - 1);
  };
  for (DType dtype : {DType::kUInt8, DType::kFloat32, DType::kInt64}) {
    for (int64_t channels : {1, 2, 3, 4}) {
      SCOPED_TRACE(::testing::Message() << dtype << ", " << channels << " channels");
      const int64_t in_h = 7, in_w = 10, out_h = 5, out_w = 13;
      Tensor image = Tensor::Allocate(dtype, Shape{in_h, in_w, channels});
      VisitNumericDType(dtype, [&](auto zero) {
        using T = decltype(zero);
        for (int64_t i = 0; i < image.NumElements(); ++i) image.mutable_data<T>()[i] = static_cast<T>(i % 97);
      });
      const Tensor out = Resized(image, {.height = out_h, .width = out_w, .method = ResizeMethod::kNearest});
      ASSERT_EQ(out.shape(), (Shape{out_h, out_w, channels}));
      const size_t pixel = channels * DTypeSize(dtype);
      const auto* in_bytes = static_cast<const char*>(image.raw_data());
      const auto* out_bytes = static_cast<const char*>(out.raw_data());
      for (int64_t y = 0; y < out_h; ++y) {
        for (int64_t x = 0; x < out_w; ++x) {
          const int64_t from = nearest(y, in_h, out_h) * in_w + nearest(x, in_w, out_w);
          EXPECT_EQ(std::memcmp(out_bytes + (y * out_w + x) * pixel, in_bytes + from * pixel, pixel), 0)
              << "(" << y << ", " << x << ")";
        }
      }
    }
  }
}

// A uint8 image's horizontal pass sums a fixed count of taps (zero weights
// included) for 1, 3 and 4 channels; the same values as float32 take the
// trimmed loop. Both give the same floats exactly, shrinking (vertical pass
// first) and enlarging the height, up to the widest fixed count (8 taps, a
// shrink by about 3x) and past it.
TEST(ResizeImage, Uint8AndFloatInputsOfTheSameValuesGiveTheSameFloats) {
  for (const int64_t channels : {1, 3, 4}) {
    for (const auto& [in_h, in_w, out_h, out_w] : std::vector<std::array<int64_t, 4>>{
             {40, 300, 17, 224}, {12, 100, 30, 45}, {33, 50, 9, 17}, {20, 90, 20, 20}, {7, 61, 7, 61}}) {
      SCOPED_TRACE(::testing::Message() << channels << " channels, [" << in_h << ", " << in_w << "] -> [" << out_h
                                      << ", " << out_w << "]");
      const Tensor bytes = testing::TestPicture(in_h, in_w, channels);
      Tensor floats = Tensor::Allocate(DType::kFloat32, bytes.shape());
      std::copy_n(bytes.data<uint8_t>(), bytes.NumElements(), floats.mutable_data<float>());
      for (ResizeMethod method : {ResizeMethod::kBilinear, ResizeMethod::kArea, ResizeMethod::kBicubic}) {
        for (bool antialias : {false, true}) {
          const ResizeOptions options{.height = out_h, .width = out_w, .method = method, .antialias = antialias};
          EXPECT_TRUE(Resized(bytes, options).Equals(Resized(floats, options)))
              << ResizeMethodName(method) << (antialias ? ", antialias" : "");
        }
      }
    }
  }
}

// ResizeImageWindow reads the window in place: the same values, bit for
// bit, as resizing a copy of the window, for every method, dtype, channel
// count and batch, and windows at every edge.
TEST(ResizeImageWindow, EqualsResizingACopyOfTheWindow) {
  std::mt19937 random(21);
  const auto uniform = [&](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(random);
  };
  for (int trial = 0; trial < 120; ++trial) {
    const int64_t n = uniform(1, 2), in_h = uniform(1, 40), in_w = uniform(1, 40), channels = uniform(1, 4);
    const ResizeMethod method = std::array{ResizeMethod::kBilinear, ResizeMethod::kNearest, ResizeMethod::kArea,
                                           ResizeMethod::kBicubic}[trial % 4];
    const ResizeOptions options{.height = uniform(1, 24), .width = uniform(1, 24), .method = method,
                                .antialias = trial % 2 == 0};
    const Shape shape = trial % 4 == 3 ? Shape{in_h, in_w, channels} : Shape{n, in_h, in_w, channels};
    Tensor image = Tensor::Allocate(trial % 5 < 2 ? DType::kUInt8 : DType::kFloat32, shape);
    for (int64_t i = 0; i < shape.NumElements(); ++i) {
      if (image.dtype() == DType::kUInt8) {
        image.mutable_data<uint8_t>()[i] = static_cast<uint8_t>(uniform(0, 255));
      } else {
        image.mutable_data<float>()[i] = std::uniform_real_distribution<float>(-1, 1)(random);
      }
    }
    const int64_t top = uniform(0, in_h - 1), left = uniform(0, in_w - 1);
    const CropWindow window{
        .top = top, .left = left, .height = uniform(1, in_h - top), .width = uniform(1, in_w - left)};
    SCOPED_TRACE(::testing::Message() << "trial " << trial << ": " << shape << " window " << window.height << "x"
                                    << window.width << "+" << window.left << "+" << window.top << " to ["
                                    << options.height << ", " << options.width << "] "
                                    << ResizeMethodName(options.method) << (options.antialias ? " antialias" : ""));
    const Result<Tensor> got = ResizeImageWindow(image, window, options);
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_TRUE(got->Equals(Resized(*CropImage(image, window), options)));
  }
  const Tensor image = Tensor::Allocate(DType::kFloat32, Shape{4, 5, 1});
  testing::ExpectInvalidArgument(
      ResizeImageWindow(image, {.top = 2, .left = 0, .height = 3, .width = 5}, {.height = 2, .width = 2}),
      "crop window 3x5 at (2, 0) is not inside the image of 4x5");
  testing::ExpectInvalidArgument(
      ResizeImageWindow(image, {.top = 0, .left = 0, .height = 0, .width = 5}, {.height = 2, .width = 2}),
      "crop window 0x5");
}

TEST(ResizeImage, InvalidArguments) {
  const Tensor image = Tensor::Allocate(DType::kFloat32, Shape{2, 2, 1});
  testing::ExpectInvalidArgument(ResizeImage(image, {.height = 0, .width = 2}), "size must be positive, got [0, 2]");
  testing::ExpectInvalidArgument(ResizeImage(Tensor::Allocate(DType::kFloat32, Shape{2, 2}), {.height = 1, .width = 1}),
                                 "expected an image [H, W, C] or a batch [N, H, W, C], got shape [2, 2]");
  testing::ExpectInvalidArgument(ResizeImage(Tensor::Allocate(DType::kFloat32, Shape{0, 2, 1}), {.height = 1, .width = 1}),
                                 "cannot resize an empty image");
  Result<Tensor> huge = ResizeImage(image, {.height = int64_t{1} << 40, .width = int64_t{1} << 40});
  EXPECT_FALSE(huge.ok());
  const Status unknown = ParseResizeMethod("lanczos3").status();
  EXPECT_EQ(unknown.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(unknown.message(), "unknown resize method 'lanczos3' (expected bilinear, nearest, area or bicubic)");
  for (ResizeMethod method :
       {ResizeMethod::kBilinear, ResizeMethod::kNearest, ResizeMethod::kArea, ResizeMethod::kBicubic}) {
    EXPECT_EQ(*ParseResizeMethod(ResizeMethodName(method)), method);
  }
}

}  // namespace
}  // namespace sluice
