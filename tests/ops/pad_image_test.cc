#include "sluice/ops/pad_image.h"

#include <gtest/gtest.h>

#include <vector>

#include "ops/op_test_util.h"

namespace sluice {
namespace {

// The 4x5 one-channel image of the torchvision values below: 13 * i % 256.
Tensor Ramp() {
  std::vector<uint8_t> values(20);
  for (int i = 0; i < 20; ++i) values[i] = static_cast<uint8_t>(13 * i % 256);
  return Tensor::FromVector<uint8_t>(values, Shape{4, 5, 1});
}

// The whole image padded by (top, bottom, left, right) in `mode`.
Result<Tensor> Pad(const Tensor& image, int64_t top, int64_t bottom, int64_t left, int64_t right, PaddingMode mode,
                   double fill = 0) {
  std::vector<int64_t> rows, columns;
  for (int64_t i = 0; i < image.dim(0) + top + bottom; ++i)
    rows.push_back(PaddedSourceIndex(i, image.dim(0), top, mode));
  for (int64_t i = 0; i < image.dim(1) + left + right; ++i) {
    columns.push_back(PaddedSourceIndex(i, image.dim(1), left, mode));
  }
  return GatherImagePixels(image, rows, columns, fill);
}

// Values from torchvision.transforms.functional.pad(image, [left, top, right,
// bottom], padding_mode=...) on the same image.
TEST(PadImage, ModesGiveTorchvisionsValues) {
  const Tensor image = Ramp();
  testing::ExpectTensorNear(
      Pad(image, 2, 1, 1, 3, PaddingMode::kReflect),
      Tensor::FromVector<uint8_t>(
          {143, 130, 143, 156, 169, 182, 169, 156, 143, 78,  65,  78,  91,  104, 117, 104, 91,  78,  13,  0,   13,
           26,  39,  52,  39,  26,  13,  78,  65,  78,  91,  104, 117, 104, 91,  78,  143, 130, 143, 156, 169, 182,
           169, 156, 143, 208, 195, 208, 221, 234, 247, 234, 221, 208, 143, 130, 143, 156, 169, 182, 169, 156, 143},
          Shape{7, 9, 1}));
  testing::ExpectTensorNear(
      Pad(image, 1, 3, 2, 0, PaddingMode::kSymmetric),
      Tensor::FromVector<uint8_t>(
          {13,  0,   0,   13,  26,  39,  52,  13,  0,   0,   13,  26,  39,  52,  78,  65,  65,  78,  91,
           104, 117, 143, 130, 130, 143, 156, 169, 182, 208, 195, 195, 208, 221, 234, 247, 208, 195, 195,
           208, 221, 234, 247, 143, 130, 130, 143, 156, 169, 182, 78,  65,  65,  78,  91,  104, 117},
          Shape{8, 7, 1}));
  testing::ExpectTensorNear(
      Pad(image, 1, 1, 1, 1, PaddingMode::kEdge),
      Tensor::FromVector<uint8_t>(
          {0,   0,   13,  26,  39,  52,  52,  0,   0,   13,  26,  39,  52,  52,  65,  65,  78,  91,  104, 117, 117,
           130, 130, 143, 156, 169, 182, 182, 195, 195, 208, 221, 234, 247, 247, 195, 195, 208, 221, 234, 247, 247},
          Shape{6, 7, 1}));
  testing::ExpectTensorNear(
      Pad(image, 0, 1, 4, 0, PaddingMode::kConstant, 7),
      Tensor::FromVector<uint8_t>(
          {7,   7,   7,   7,   0, 13, 26, 39, 52,  7,   7,   7,   7,   65, 78, 91, 104, 117, 7, 7, 7, 7, 130,
           143, 156, 169, 182, 7, 7,  7,  7,  195, 208, 221, 234, 247, 7,  7,  7,  7,   7,   7, 7, 7, 7},
          Shape{5, 9, 1}));
}

// Every pixel size (those with a specialised copy and others), batches, and a
// fill converted with saturation.
TEST(PadImage, GathersEveryPixelSizeAndBatch) {
  for (DType dtype : {DType::kUInt8, DType::kFloat32, DType::kInt64}) {
    for (int64_t channels : {1, 2, 3, 4}) {
      SCOPED_TRACE(::testing::Message() << dtype << ", " << channels << " channels");
      const Shape shape{2, 3, 4, channels};
      Tensor batch = Tensor::Allocate(dtype, shape);
      VisitNumericDType(dtype, [&](auto zero) {
        using T = decltype(zero);
        for (int64_t i = 0; i < shape.NumElements(); ++i) batch.mutable_data<T>()[i] = static_cast<T>(i % 200 + 1);
      });
      const std::vector<int64_t> rows = {2, -1, 0}, columns = {-1, 1, 2, 3, 3, -1, 0};
      Result<Tensor> out = GatherImagePixels(batch, rows, columns, 1000);
      ASSERT_TRUE(out.ok()) << out.status();
      ASSERT_EQ(out->shape(), (Shape{2, 3, 7, channels}));
      const std::vector<double> in = testing::FloatValues(batch), got = testing::FloatValues(*out);
      const double fill = dtype == DType::kUInt8 ? 255 : 1000;
      for (int64_t b = 0; b < 2; ++b) {
        for (int64_t y = 0; y < 3; ++y) {
          for (int64_t x = 0; x < 7; ++x) {
            for (int64_t c = 0; c < channels; ++c) {
              const double want =
                  rows[y] < 0 || columns[x] < 0 ? fill : in[((b * 3 + rows[y]) * 4 + columns[x]) * channels + c];
              ASSERT_EQ(got[((b * 3 + y) * 7 + x) * channels + c], want) << b << " " << y << " " << x << " " << c;
            }
          }
        }
      }
    }
  }
}

TEST(PadImage, Errors) {
  const Tensor image = Ramp();
  EXPECT_TRUE(CheckPadding("height", 4, 3, 3, PaddingMode::kReflect).ok());
  EXPECT_FALSE(CheckPadding("height", 4, 4, 0, PaddingMode::kReflect).ok());
  EXPECT_TRUE(CheckPadding("height", 4, 4, 0, PaddingMode::kSymmetric).ok());
  const Status symmetric = CheckPadding("width", 4, 0, 5, PaddingMode::kSymmetric);
  EXPECT_EQ(symmetric.message(), "symmetric padding of 5 needs a width of at least 5, got 4");
  EXPECT_TRUE(CheckPadding("width", 1, 100, 100, PaddingMode::kEdge).ok());
  EXPECT_FALSE(CheckPadding("width", 4, -1, 0, PaddingMode::kConstant).ok());
  const std::vector<int64_t> ok = {0}, past = {5}, below = {-2};
  testing::ExpectInvalidArgument(GatherImagePixels(image, ok, past, 0), "source column 5 is outside the image's 5");
  testing::ExpectInvalidArgument(GatherImagePixels(image, below, ok, 0), "source row -2");
  testing::ExpectInvalidArgument(GatherImagePixels(image, {}, ok, 0), "no rows or columns");
  testing::ExpectInvalidArgument(GatherImagePixels(Tensor::FromVector<float>({1, 2}), ok, ok, 0),
                                 "expected an image [H, W, C]");
  EXPECT_EQ(*ParsePaddingMode("symmetric"), PaddingMode::kSymmetric);
  EXPECT_FALSE(ParsePaddingMode("wrap").ok());
}

}  // namespace
}  // namespace sluice
