#include "sluice/ops/jpeg_crop_scale.h"

#include <gtest/gtest.h>

namespace sluice {
namespace {

struct ScaleCase {
  CropWindow window;
  int64_t out_height, out_width;
  int numerator;
};

// The smallest M in 1..4 with floor(side * M / 8) >= the output's side, both
// sides; 8 when none does.
TEST(JpegCropScale, SmallestScaleThatKeepsTheOutputSize) {
  for (const ScaleCase& c : {
           ScaleCase{{.height = 1792, .width = 1792}, 224, 224, /*numerator=*/1},
           ScaleCase{{.height = 1791, .width = 1792}, 224, 224, /*numerator=*/2},
           ScaleCase{{.height = 448, .width = 448}, 224, 224, /*numerator=*/4},
           ScaleCase{{.height = 600, .width = 600}, 224, 224, /*numerator=*/3},  // 600 * 3 / 8 = 225
           ScaleCase{{.height = 447, .width = 900}, 224, 224, /*numerator=*/8},  // 447 * 4 / 8 = 223
           ScaleCase{{.height = 375, .width = 500}, 224, 224, /*numerator=*/8},  // 5/8 would do, but is slower
           ScaleCase{{.height = 256, .width = 256}, 224, 224, /*numerator=*/8},  // and 7/8 too
           ScaleCase{{.height = 224, .width = 224}, 224, 224, /*numerator=*/8},
           ScaleCase{{.height = 100, .width = 80}, 224, 224, /*numerator=*/8},  // upscaled by the resize
           ScaleCase{{.height = 800, .width = 100}, 100, 25, /*numerator=*/2},  // the width decides
       }) {
    EXPECT_EQ(JpegCropScale(c.window, c.out_height, c.out_width), c.numerator)
        << c.window.height << "x" << c.window.width << " to " << c.out_height << "x" << c.out_width;
  }
}

TEST(ScaleCropWindow, RoundsEachEdgeHalfUp) {
  // Rows [3, 453) at 4/8: [round(1.5), round(226.5)) = [2, 227); columns
  // [5, 305): [round(2.5), round(152.5)) = [3, 153).
  EXPECT_EQ(ScaleCropWindow({.top = 3, .left = 5, .height = 450, .width = 300}, 4),
            (CropWindow{.top = 2, .left = 3, .height = 225, .width = 150}));
  EXPECT_EQ(ScaleCropWindow({.top = 3, .left = 5, .height = 450, .width = 300}, 8),
            (CropWindow{.top = 3, .left = 5, .height = 450, .width = 300}));
  // Rows [10, 385) at 3/8: [round(3.75), round(144.375)) = [4, 144);
  // columns [0, 500): [0, round(187.5)) = [0, 188).
  EXPECT_EQ(ScaleCropWindow({.top = 10, .left = 0, .height = 375, .width = 500}, 3),
            (CropWindow{.top = 4, .left = 0, .height = 140, .width = 188}));
}

// Every window of a small image, at the scale the rule picks for every
// output size: the scaled window lies inside the scaled image
// (ceil(side * M / 8), libjpeg's size) and is at least the output size.
TEST(ScaleCropWindow, StaysInsideTheScaledImageAndKeepsTheOutputSize) {
  constexpr int64_t kHeight = 37, kWidth = 29;
  for (int64_t out = 1; out <= 12; ++out) {
    for (int64_t top = 0; top < kHeight; top += 3) {
      for (int64_t height = 1; top + height <= kHeight; ++height) {
        for (int64_t left = 0; left < kWidth; left += 4) {
          for (int64_t width = 1; left + width <= kWidth; width += 2) {
            const CropWindow window{.top = top, .left = left, .height = height, .width = width};
            const int m = JpegCropScale(window, out, out);
            if (m == 8) continue;
            const CropWindow scaled = ScaleCropWindow(window, m);
            ASSERT_GE(scaled.height, out);
            ASSERT_GE(scaled.width, out);
            ASSERT_TRUE(CheckWindowInside(scaled, (kHeight * m + 7) / 8, (kWidth * m + 7) / 8).ok());
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace sluice
