#include "sluice/ops/mixup.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "ops/op_test_util.h"
#include "sluice/ops/counter_rng.h"

namespace sluice {
namespace {

// Image i is mixed with image N-1-i, as timm's x.flip(0).
TEST(Mixup, MixesEachImageWithTheFlippedBatch) {
  const Tensor batch = Tensor::FromVector<float>({1, 2, 10, 20, 100, 200}, Shape{3, 1, 1, 2});
  testing::ExpectTensorNear(MixBatchImages(batch, 0.75),
                            Tensor::FromVector<float>({25.75f, 51.5f, 10, 20, 75.25f, 150.5f}, Shape{3, 1, 1, 2}),
                            1e-4);
  testing::ExpectInvalidArgument(MixBatchImages(Tensor::FromVector<uint8_t>({1}), 0.5),
                                 "mixup: expected a float32 batch");
}

// timm's rand_bbox: a box of int(side * sqrt(1 - lam)) around the drawn
// centre, half of it (rounded down) on each side, clipped to the image.
TEST(Mixup, CutmixWindowIsTimmsBox) {
  EXPECT_EQ(CutmixWindow(10, 10, 0.75, 0.5, 0.2), (CropWindow{.top = 3, .left = 0, .height = 4, .width = 4}));
  EXPECT_EQ(CutmixWindow(10, 20, 0.0, 0.99, 0.0), (CropWindow{.top = 4, .left = 0, .height = 6, .width = 10}));
  EXPECT_EQ(CutmixWindow(8, 8, 1.0, 0.3, 0.3).height, 0);
}

TEST(Mixup, PastesTheFlippedBatchsWindowInEitherLayout) {
  // Two 1-channel 3x3 images (CHW), values 0..8 and 10..18.
  std::vector<float> values(18);
  for (int i = 0; i < 18; ++i) values[i] = static_cast<float>(i < 9 ? i : i + 1);
  const Tensor chw = Tensor::FromVector<float>(values, Shape{2, 1, 3, 3});
  const CropWindow window{.top = 1, .left = 1, .height = 2, .width = 1};
  testing::ExpectTensorNear(
      PasteFlippedWindow(chw, window, ImageLayout::kCHW),
      Tensor::FromVector<float>({0, 1, 2, 3, 14, 5, 6, 17, 8, 10, 11, 12, 13, 4, 15, 16, 7, 18}, Shape{2, 1, 3, 3}));
  // The same values as HWC images of 3x1 pixels of 3 channels: rows 1-2, column 0 swapped whole.
  const Tensor hwc = Tensor::FromVector<float>(values, Shape{2, 3, 1, 3});
  testing::ExpectTensorNear(
      PasteFlippedWindow(hwc, {.top = 1, .left = 0, .height = 2, .width = 1}, ImageLayout::kHWC),
      Tensor::FromVector<float>({0, 1, 2, 13, 14, 15, 16, 17, 18, 10, 11, 12, 3, 4, 5, 6, 7, 8}, Shape{2, 3, 1, 3}));
  testing::ExpectInvalidArgument(
      PasteFlippedWindow(chw, {.top = 2, .left = 0, .height = 2, .width = 1}, ImageLayout::kCHW),
      "cutmix: window 2x1 at (2, 0) is not inside the image of 3x3");
}

// One-hot rows with timm's smoothing (off = s / K, on = 1 - s + off), mixed
// with the flipped batch's rows.
TEST(Mixup, LabelsBecomeSmoothedMixedRows) {
  const Tensor ids = Tensor::FromVector<int64_t>({0, 2, 1});
  const float off = 0.1f / 3, on = 0.9f + off;
  testing::ExpectTensorNear(MixBatchLabels(ids, 3, 0.1, 0.6),
                            Tensor::FromVector<float>({0.6f * on + 0.4f * off, 0.4f * on + 0.6f * off, off, off, off,
                                                       on, 0.6f * off + 0.4f * on, 0.6f * on + 0.4f * off, off},
                                                      Shape{3, 3}),
                            1e-6);
  const Tensor rows = Tensor::FromVector<float>({1, 0, 0, 1}, Shape{2, 2});
  testing::ExpectTensorNear(MixBatchLabels(rows, 0, 0.1, 0.25),
                            Tensor::FromVector<float>({0.25f, 0.75f, 0.75f, 0.25f}, Shape{2, 2}));
  testing::ExpectInvalidArgument(MixBatchLabels(Tensor::FromVector<int32_t>({0, 3}), 3, 0, 0.5),
                                 "mixup: label 3 of row 1 is not a class id in [0, 3)");
  testing::ExpectInvalidArgument(MixBatchLabels(ids, 0, 0, 0.5), "class id labels need num_classes > 0");
  testing::ExpectInvalidArgument(MixBatchLabels(rows, 3, 0, 0.5), "label rows of 2 classes; expected 3");
  testing::ExpectInvalidArgument(MixBatchLabels(Tensor::FromVector<float>({1, 2}), 2, 0, 0.5),
                                 "expected labels of int32 or int64 class ids [N] or float32 rows [N, K]");
}

// Beta(a, a) has mean 1/2 and variance 1 / (4 (2a + 1)), and stays in [0, 1].
TEST(Mixup, SymmetricBetaHasItsMoments) {
  for (const double alpha : {0.2, 0.8, 1.0, 4.0}) {
    SCOPED_TRACE(alpha);
    constexpr int kDraws = 6000;
    double sum = 0, squares = 0;
    for (int i = 0; i < kDraws; ++i) {
      const uint64_t state = Mix64(static_cast<uint64_t>(i) + 77);
      const double x = DrawSymmetricBeta(
          alpha, [state](int64_t k) { return UniformAt(state, k); }, 16);
      ASSERT_GE(x, 0);
      ASSERT_LE(x, 1);
      sum += x;
      squares += x * x;
    }
    const double mean = sum / kDraws, variance = squares / kDraws - mean * mean;
    EXPECT_NEAR(mean, 0.5, 0.015);
    EXPECT_NEAR(variance, 1 / (4 * (2 * alpha + 1)), 0.1 / (4 * (2 * alpha + 1)));
  }
}

}  // namespace
}  // namespace sluice
