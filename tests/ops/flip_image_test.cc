#include "sluice/ops/flip_image.h"

#include <gtest/gtest.h>

#include "ops/op_test_util.h"

namespace sluice {
namespace {

TEST(FlipImage, LeftRightAndUpDown) {
  // [2, 3, 2]: pixel (y, x) holds (10y + x, -(10y + x)).
  const Tensor image = Tensor::FromVector<int32_t>({0, 0, 1, -1, 2, -2, 10, -10, 11, -11, 12, -12}, Shape{2, 3, 2});
  Result<Tensor> lr = FlipImage(image, FlipDirection::kLeftRight);
  ASSERT_TRUE(lr.ok()) << lr.status();
  EXPECT_TRUE(lr->Equals(Tensor::FromVector<int32_t>({2, -2, 1, -1, 0, 0, 12, -12, 11, -11, 10, -10}, Shape{2, 3, 2})));
  Result<Tensor> ud = FlipImage(image, FlipDirection::kUpDown);
  ASSERT_TRUE(ud.ok()) << ud.status();
  EXPECT_TRUE(ud->Equals(Tensor::FromVector<int32_t>({10, -10, 11, -11, 12, -12, 0, 0, 1, -1, 2, -2}, Shape{2, 3, 2})));
}

TEST(FlipImage, BatchesFlipEachImage) {
  const Tensor batch = Tensor::FromVector<uint8_t>({1, 2, 3, 4, 5, 6, 7, 8}, Shape{2, 2, 2, 1});
  Result<Tensor> lr = FlipImage(batch, FlipDirection::kLeftRight);
  ASSERT_TRUE(lr.ok()) << lr.status();
  EXPECT_TRUE(lr->Equals(Tensor::FromVector<uint8_t>({2, 1, 4, 3, 6, 5, 8, 7}, Shape{2, 2, 2, 1})));
  Result<Tensor> ud = FlipImage(batch, FlipDirection::kUpDown);
  ASSERT_TRUE(ud.ok()) << ud.status();
  EXPECT_TRUE(ud->Equals(Tensor::FromVector<uint8_t>({3, 4, 1, 2, 7, 8, 5, 6}, Shape{2, 2, 2, 1})));
  testing::ExpectInvalidArgument(FlipImage(Tensor::FromVector<float>({1, 2}), FlipDirection::kLeftRight),
                                 "expected an image [H, W, C] or a batch [N, H, W, C], got shape [2]");
}

// Every pixel size, those with a copy specialised for them (1, 3 and 4
// channels of uint8 and float32) and others, against an index-by-index
// mirror, for odd and even widths.
TEST(FlipImage, LeftRightMirrorsEveryPixelSize) {
  for (DType dtype : {DType::kUInt8, DType::kFloat32, DType::kInt64}) {
    for (int64_t channels : {1, 2, 3, 4}) {
      for (int64_t width : {1, 6, 7}) {
        SCOPED_TRACE(::testing::Message() << dtype << ", " << channels << " channels, width " << width);
        const int64_t height = 3;
        Tensor image = Tensor::Allocate(dtype, Shape{height, width, channels});
        Tensor expected = Tensor::Allocate(dtype, image.shape());
        VisitNumericDType(dtype, [&](auto zero) {
          using T = decltype(zero);
          for (int64_t y = 0; y < height; ++y) {
            for (int64_t x = 0; x < width; ++x) {
              for (int64_t c = 0; c < channels; ++c) {
                const auto value = static_cast<T>((y * 31 + x * 7 + c * 3) % 100);
                image.mutable_data<T>()[(y * width + x) * channels + c] = value;
                expected.mutable_data<T>()[(y * width + width - 1 - x) * channels + c] = value;
              }
            }
          }
        });
        Result<Tensor> flipped = FlipImage(image, FlipDirection::kLeftRight);
        ASSERT_TRUE(flipped.ok()) << flipped.status();
        EXPECT_TRUE(flipped->Equals(expected));
      }
    }
  }
}

}  // namespace
}  // namespace sluice
