#include "sluice/ops/crop_image.h"

#include <gtest/gtest.h>

#include "ops/image_test_util.h"
#include "ops/op_test_util.h"

namespace sluice {
namespace {

// torchvision's CenterCrop: int(round((H - h) / 2)), round half to even.
TEST(CenterCropWindow, CentresWithPythonRounding) {
  EXPECT_EQ(*CenterCropWindow(10, 10, 4, 4), (CropWindow{.top = 3, .left = 3, .height = 4, .width = 4}));
  EXPECT_EQ(*CenterCropWindow(5, 8, 4, 5), (CropWindow{.top = 0, .left = 2, .height = 4, .width = 5}));  // 0.5, 1.5
  EXPECT_EQ(*CenterCropWindow(7, 6, 2, 1), (CropWindow{.top = 2, .left = 2, .height = 2, .width = 1}));  // 2.5, 2.5
  EXPECT_EQ(*CenterCropWindow(3, 3, 3, 3), (CropWindow{.top = 0, .left = 0, .height = 3, .width = 3}));
  EXPECT_EQ(CenterCropWindow(3, 3, 4, 2).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(CenterCropWindow(3, 3, 0, 2).status().code(), StatusCode::kInvalidArgument);
}

TEST(CropImage, CopiesTheWindowOfEveryImage) {
  // [2, 3, 4, 1]: value = 100 * image + 10 * row + column.
  std::vector<int32_t> values;
  for (int i = 0; i < 2; ++i)
    for (int y = 0; y < 3; ++y)
      for (int x = 0; x < 4; ++x) values.push_back(100 * i + 10 * y + x);
  const Tensor batch = Tensor::FromVector<int32_t>(values, Shape{2, 3, 4, 1});
  Result<Tensor> crop = CropImage(batch, {.top = 1, .left = 2, .height = 2, .width = 2});
  ASSERT_TRUE(crop.ok()) << crop.status();
  EXPECT_TRUE(crop->Equals(Tensor::FromVector<int32_t>({12, 13, 22, 23, 112, 113, 122, 123}, Shape{2, 2, 2, 1})));
  Result<Tensor> one = CropImage(batch.Row(1), {.top = 0, .left = 0, .height = 1, .width = 4});
  ASSERT_TRUE(one.ok()) << one.status();
  EXPECT_TRUE(one->Equals(Tensor::FromVector<int32_t>({100, 101, 102, 103}, Shape{1, 4, 1})));
}

TEST(CropImage, WindowOutsideTheImageIsInvalid) {
  const Tensor image = testing::TestPicture(4, 4, 3);
  testing::ExpectInvalidArgument(CropImage(image, {.top = 3, .left = 0, .height = 2, .width = 2}),
                                 "crop window 2x2 at (3, 0) is not inside the image of 4x4");
  testing::ExpectInvalidArgument(CropImage(image, {.top = -1, .left = 0, .height = 1, .width = 1}), "not inside");
  testing::ExpectInvalidArgument(CropImage(Tensor::Scalar("s"), {.height = 1, .width = 1}), "expected an image");
}

}  // namespace
}  // namespace sluice
