#include "sluice/ops/crop_mirror_normalize.h"

#include <gtest/gtest.h>

#include "ops/image_test_util.h"
#include "ops/op_test_util.h"
#include "sluice/ops/crop_image.h"

namespace sluice {
namespace {

using testing::ExpectInvalidArgument;

// The separate steps, one at a time: crop, mirror, normalise, transpose.
Tensor StepByStep(const Tensor& image, const CropMirrorNormalizeOptions& o) {
  const int64_t c = image.dim(2);
  CropWindow window{.top = 0, .left = 0, .height = image.dim(0), .width = image.dim(1)};
  if (o.crop_height != 0) window = *CenterCropWindow(image.dim(0), image.dim(1), o.crop_height, o.crop_width);
  const Tensor crop = *CropImage(image, window);
  const int64_t h = window.height, w = window.width;
  std::vector<float> out(h * w * c);
  for (int64_t y = 0; y < h; ++y)
    for (int64_t x = 0; x < w; ++x)
      for (int64_t k = 0; k < c; ++k) {
        const int64_t sx = o.mirror ? w - 1 - x : x;
        const float mean = o.mean.size() == 1 ? o.mean[0] : o.mean[k];
        const float std = o.std.size() == 1 ? o.std[0] : o.std[k];
        const float v = (static_cast<float>(crop.data<uint8_t>()[(y * w + sx) * c + k]) - mean) / std;
        out[o.layout == ImageLayout::kHWC ? (y * w + x) * c + k : k * h * w + y * w + x] = v;
      }
  return Tensor::FromVector<float>(out, o.layout == ImageLayout::kHWC ? Shape{h, w, c} : Shape{c, h, w});
}

TEST(CropMirrorNormalize, EqualsTheStepsOneAtATime) {
  const Tensor image = testing::TestPicture(11, 14, 3);
  const std::vector<float> mean = {0.485f * 255, 0.456f * 255, 0.406f * 255};
  const std::vector<float> std = {0.229f * 255, 0.224f * 255, 0.225f * 255};
  for (ImageLayout layout : {ImageLayout::kHWC, ImageLayout::kCHW}) {
    for (bool mirror : {false, true}) {
      for (int64_t crop : {0, 7}) {
        SCOPED_TRACE(::testing::Message() << ImageLayoutName(layout) << " mirror " << mirror << " crop " << crop);
        const CropMirrorNormalizeOptions options{
            .crop_height = crop, .crop_width = crop, .mean = mean, .std = std, .mirror = mirror, .layout = layout};
        testing::ExpectTensorNear(CropMirrorNormalize(image, options), StepByStep(image, options), 1e-5);
      }
    }
  }
}

TEST(CropMirrorNormalize, Float16OutputAndBatches) {
  const Tensor image = testing::TestPicture(6, 8, 3);
  const CropMirrorNormalizeOptions options{.crop_height = 4, .crop_width = 5, .mean = {128}, .std = {64},
                                           .mirror = true, .dtype = DType::kFloat16};
  Result<Tensor> half = CropMirrorNormalize(image, options);
  ASSERT_TRUE(half.ok()) << half.status();
  ASSERT_EQ(half->dtype(), DType::kFloat16);
  ASSERT_EQ(half->shape(), (Shape{3, 4, 5}));
  CropMirrorNormalizeOptions as_float = options;
  as_float.dtype = DType::kFloat32;
  const Tensor full = *CropMirrorNormalize(image, as_float);
  for (int64_t i = 0; i < full.NumElements(); ++i) {
    EXPECT_NEAR(static_cast<float>(half->data<Float16>()[i]), full.data<float>()[i], 2e-3) << i;
  }
  Tensor batch = Tensor::Allocate(DType::kUInt8, Shape{2, 6, 8, 3});
  CopyIntoRows(image, batch, 0);
  CopyIntoRows(testing::TestPicture(6, 8, 3, 9), batch, 1);
  Result<Tensor> batched = CropMirrorNormalize(batch, as_float);
  ASSERT_TRUE(batched.ok()) << batched.status();
  ASSERT_EQ(batched->shape(), (Shape{2, 3, 4, 5}));
  EXPECT_TRUE(batched->Row(0).Equals(full));
  EXPECT_TRUE(batched->Row(1).Equals(*CropMirrorNormalize(testing::TestPicture(6, 8, 3, 9), as_float)));
}

// `image`'s values as another dtype (exact for the small integers of a
// test picture).
Tensor ConvertedPicture(const Tensor& image, DType dtype) {
  Tensor out = Tensor::Allocate(dtype, image.shape());
  VisitNumericDType(dtype, [&](auto zero) {
    using T = decltype(zero);
    T* values = out.mutable_data<T>();
    for (int64_t i = 0; i < image.NumElements(); ++i) values[i] = static_cast<T>(image.data<uint8_t>()[i]);
  });
  return out;
}

// uint8 and float32 images of 1, 3 and 4 channels take a loop specialised
// for their channel count, layout and mirror; int32 and float64 images of
// the same values take the general one. The outputs are the same floats
// (and halves), for every layout, mirror, crop and batch.
TEST(CropMirrorNormalize, TheSpecialisedLoopsGiveTheGeneralLoopsValues) {
  for (int64_t channels : {1, 3, 4}) {
    const Tensor picture = testing::TestPicture(9, 13, channels);
    Tensor batch = Tensor::Allocate(DType::kUInt8, Shape{2, 9, 13, channels});
    CopyIntoRows(picture, batch, 0);
    CopyIntoRows(testing::TestPicture(9, 13, channels, 5), batch, 1);
    for (const Tensor& image : {picture, batch}) {
      for (ImageLayout layout : {ImageLayout::kHWC, ImageLayout::kCHW}) {
        for (bool mirror : {false, true}) {
          for (int64_t crop : {0, 6}) {
            for (DType out : {DType::kFloat32, DType::kFloat16}) {
              SCOPED_TRACE(::testing::Message() << channels << " channels, rank " << image.rank() << ", "
                                                << ImageLayoutName(layout) << " mirror " << mirror << " crop "
                                                << crop << " out " << out);
              const CropMirrorNormalizeOptions options{.crop_height = crop, .crop_width = crop,
                                                       .mean = {100.5f}, .std = {57.25f}, .mirror = mirror,
                                                       .layout = layout, .dtype = out};
              const Tensor general = *CropMirrorNormalize(ConvertedPicture(image, DType::kInt32), options);
              EXPECT_TRUE(CropMirrorNormalize(image, options)->Equals(general));
              EXPECT_TRUE(CropMirrorNormalize(ConvertedPicture(image, DType::kFloat32), options)->Equals(general));
              EXPECT_TRUE(CropMirrorNormalize(ConvertedPicture(image, DType::kFloat64), options)->Equals(general));
            }
          }
        }
      }
    }
  }
}

TEST(CropMirrorNormalize, InvalidArguments) {
  const Tensor image = testing::TestPicture(4, 4, 3);
  ExpectInvalidArgument(CropMirrorNormalize(image, {.crop_height = 5, .crop_width = 2}),
                        "crop [5, 2] is larger than the image [4, 4]");
  ExpectInvalidArgument(CropMirrorNormalize(image, {.crop_height = 2, .crop_width = 0}),
                        "crop must be empty or two positive dims, got [2, 0]");
  ExpectInvalidArgument(CropMirrorNormalize(image, {.mean = {1, 2}}),
                        "mean has 2 values for an image of 3 channels (expected 1 or 3)");
  ExpectInvalidArgument(CropMirrorNormalize(image, {.std = {1, 0, 1}}), "std must not be 0");
  ExpectInvalidArgument(CropMirrorNormalize(image, {.dtype = DType::kFloat64}),
                        "dtype must be float32 or float16, got float64");
  EXPECT_EQ(*ParseImageLayout("HWC"), ImageLayout::kHWC);
  EXPECT_EQ(ParseImageLayout("NCHW").status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace sluice
