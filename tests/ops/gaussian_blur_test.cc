#include "sluice/ops/gaussian_blur.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "ops/op_test_util.h"

namespace sluice {
namespace {

// The 4x5 one-channel image 13 * i % 256.
Tensor Ramp(DType dtype) {
  std::vector<float> values(20);
  for (int i = 0; i < 20; ++i) values[i] = static_cast<float>(13 * i % 256);
  Tensor ramp = Tensor::FromVector<float>(values, Shape{4, 5, 1});
  if (dtype == DType::kFloat32) return ramp;
  std::vector<uint8_t> bytes(values.begin(), values.end());
  return Tensor::FromVector<uint8_t>(bytes, Shape{4, 5, 1});
}

// Values from torchvision.transforms.functional.gaussian_blur(image,
// kernel_size=[3, 5], sigma=[1.5, 0.7]) ([width, height] in torchvision's
// order) on the same image, as float32 and as uint8.
TEST(GaussianBlur, GivesTorchvisionsValues) {
  const GaussianBlurOptions options{.kernel_height = 5, .kernel_width = 3, .sigma_y = 0.7, .sigma_x = 1.5};
  testing::ExpectTensorNear(GaussianBlur(Ramp(DType::kFloat32), options),
                            Tensor::FromVector<float>({37.209133f,  42.206299f,  55.206295f,  68.206306f,  73.203461f,
                                                       74.253433f,  79.250610f,  92.250595f,  105.250610f, 110.247765f,
                                                       136.752228f, 141.749405f, 154.749390f, 167.749390f, 172.746582f,
                                                       173.796524f, 178.793716f, 191.793701f, 204.793701f, 209.790894f},
                                                      Shape{4, 5, 1}),
                            1e-4);
  testing::ExpectTensorNear(GaussianBlur(Ramp(DType::kUInt8), options),
                            Tensor::FromVector<uint8_t>({37,  42,  55,  68,  73,  74,  79,  92,  105, 110,
                                                         137, 142, 155, 168, 173, 174, 179, 192, 205, 210},
                                                        Shape{4, 5, 1}));
}

// Three channels blurred each alone: torchvision's values for a random
// 6x7x3 uint8 image, kernel 5x5, sigma 1.1, within one level (torchvision
// sums the 2-D kernel's 25 products, this the two passes' 5 and 5).
TEST(GaussianBlur, BlursEachChannelAlone) {
  const std::vector<uint8_t> in = {
      248, 194, 190, 207, 147, 26,  237, 21,  245, 211, 239, 45,  5,   157, 159, 60,  54,  236, 109, 46,  199,
      82,  32,  205, 36,  7,   134, 222, 57,  146, 8,   149, 14,  15,  22,  10,  144, 208, 24,  24,  7,   41,
      11,  85,  59,  104, 225, 110, 226, 201, 8,   159, 26,  27,  163, 122, 33,  41,  201, 67,  70,  166, 228,
      40,  50,  179, 0,   177, 137, 63,  13,  188, 255, 64,  94,  8,   8,   156, 25,  29,  157, 146, 190, 115,
      219, 135, 39,  100, 237, 127, 72,  227, 168, 21,  73,  132, 16,  153, 140, 107, 80,  163, 61,  110, 47,
      229, 148, 170, 97,  110, 56,  150, 74,  193, 62,  44,  238, 239, 226, 188, 14,  205, 185, 193, 73,  238};
  const std::vector<uint8_t> want = {
      135, 90,  133, 144, 91,  125, 148, 99,  107, 117, 115, 81,  82, 116, 79,  74, 110, 97,  76, 102, 109,
      113, 95,  130, 126, 97,  121, 140, 100, 100, 119, 107, 75,  87, 111, 73,  75, 114, 91,  75, 113, 104,
      83,  119, 122, 99,  119, 115, 125, 109, 97,  121, 97,  79,  94, 99,  81,  76, 116, 99,  72, 124, 110,
      81,  139, 122, 89,  136, 122, 106, 117, 119, 107, 94,  113, 89, 93,  115, 76, 109, 123, 74, 119, 127,
      111, 154, 117, 104, 149, 126, 96,  129, 142, 89,  109, 149, 83, 108, 149, 80, 114, 147, 83, 117, 145,
      128, 156, 115, 115, 150, 127, 95,  131, 151, 84,  117, 164, 83, 120, 163, 85, 122, 157, 89, 121, 153};
  const Tensor image = Tensor::FromVector<uint8_t>(in, Shape{6, 7, 3});
  const GaussianBlurOptions options{.kernel_height = 5, .kernel_width = 5, .sigma_y = 1.1, .sigma_x = 1.1};
  testing::ExpectTensorNear(GaussianBlur(image, options), Tensor::FromVector<uint8_t>(want, Shape{6, 7, 3}), 1);
  // A batch blurs each image as alone (the long rows run the 16-value rounding).
  Tensor batch = Tensor::Allocate(DType::kUInt8, Shape{2, 6, 7, 3});
  CopyIntoRows(image, batch, 0);
  CopyIntoRows(Tensor::FromVector<uint8_t>(std::vector<uint8_t>(in.rbegin(), in.rend()), Shape{6, 7, 3}), batch, 1);
  Result<Tensor> blurred = GaussianBlur(batch, options);
  ASSERT_TRUE(blurred.ok()) << blurred.status();
  testing::ExpectTensorNear(blurred->Row(0), *GaussianBlur(image, options), 0);
  testing::ExpectTensorNear(blurred->Row(1), *GaussianBlur(batch.Row(1), options), 0);
}

// A constant image stays constant, and the kernel is torchvision's.
TEST(GaussianBlur, KernelSumsToOneAndKeepsAConstant) {
  const std::vector<float> kernel = GaussianKernel1d(5, 1.0);
  ASSERT_EQ(kernel.size(), 5u);
  double sum = 0;
  for (float w : kernel) sum += w;
  EXPECT_NEAR(sum, 1, 1e-6);
  // exp(-x^2 / 2) at 0, 1, 2, normalised.
  const double total = 1 + 2 * std::exp(-0.5) + 2 * std::exp(-2.0);
  EXPECT_NEAR(kernel[2], 1 / total, 1e-6);
  EXPECT_NEAR(kernel[0], std::exp(-2.0) / total, 1e-6);
  Tensor flat = Tensor::Allocate(DType::kUInt8, Shape{9, 40, 3});
  for (int64_t i = 0; i < flat.NumElements(); ++i) flat.mutable_data<uint8_t>()[i] = 77;
  testing::ExpectTensorNear(GaussianBlur(flat, {.kernel_height = 9, .kernel_width = 23, .sigma_y = 2, .sigma_x = 2}),
                            flat, 0);
}

TEST(GaussianBlur, Errors) {
  const Tensor image = Ramp(DType::kUInt8);
  testing::ExpectInvalidArgument(GaussianBlur(image, {.kernel_height = 4}), "kernel size must be odd");
  testing::ExpectInvalidArgument(GaussianBlur(image, {.kernel_width = 0}), "kernel size must be odd");
  testing::ExpectInvalidArgument(GaussianBlur(image, {.kernel_width = 1025}),
                                 "kernel size must be odd and in [1, 1023]");
  testing::ExpectInvalidArgument(GaussianBlur(image, {.sigma_y = 0}), "sigma must be positive and finite");
  testing::ExpectInvalidArgument(GaussianBlur(image, {.sigma_x = NAN}), "sigma must be positive and finite");
  // Reflect padding by half the kernel needs more rows than that.
  testing::ExpectInvalidArgument(
      GaussianBlur(image, {.kernel_height = 9}),
      "gaussian blur of kernel 9x3: reflect padding of 4 needs a height of at least 5, got 4");
  testing::ExpectInvalidArgument(
      GaussianBlur(Tensor::FromVector<int32_t>({1}, Shape{1, 1, 1}), {.kernel_height = 1, .kernel_width = 1}),
      "expected a uint8 or float32 image");
}

}  // namespace
}  // namespace sluice
