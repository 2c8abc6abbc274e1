#include "sluice/ops/random_resized_crop.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>

namespace sluice {
namespace {

// A stream with chosen values at some positions, 0.5 elsewhere.
UniformStream Stream(std::map<int64_t, double> values) {
  return [values = std::move(values)](int64_t k) {
    auto it = values.find(k);
    return it == values.end() ? 0.5 : it->second;
  };
}

TEST(RandomResizedCropWindow, FollowsTorchvisionsRule) {
  // Attempt 0: area 20000 * 0.54 at aspect 1 gives 104 x 104, taller than
  // 100: rejected. Attempt 1: area 1600 at aspect 4/3 gives w = round(46.19)
  // = 46, h = round(34.64) = 35, top = floor(0.5 * 66) = 33, left =
  // floor(0.25 * 155) = 38.
  const CropWindow window = RandomResizedCropWindow(100, 200, {}, Stream({{4, 0.0}, {5, 1.0}, {7, 0.25}}));
  EXPECT_EQ(window, (CropWindow{.top = 33, .left = 38, .height = 35, .width = 46}));
}

TEST(RandomResizedCropWindow, RoundsHalfToEven) {
  // 21 x 21 at scale 0.25 and aspect 1: sqrt(110.25) = 10.5 rounds to 10.
  const RandomResizedCropOptions options{.scale_min = 0.25, .scale_max = 0.25, .ratio_min = 1, .ratio_max = 1};
  const CropWindow window = RandomResizedCropWindow(21, 21, options, Stream({{2, 0.0}, {3, 0.999}}));
  EXPECT_EQ(window, (CropWindow{.top = 0, .left = 11, .height = 10, .width = 10}));
}

TEST(RandomResizedCropWindow, FallsBackToACentralCropInTheRatioRange) {
  // A scale above 1 never fits, so every attempt fails.
  const RandomResizedCropOptions never{.scale_min = 2, .scale_max = 3, .attempts = 10};
  // Wide: h = 10, w = round(10 * 4 / 3) = 13, centred.
  EXPECT_EQ(RandomResizedCropWindow(10, 100, never, Stream({})),
            (CropWindow{.top = 0, .left = 43, .height = 10, .width = 13}));
  // Tall: w = 10, h = round(10 / (3 / 4)) = 13.
  EXPECT_EQ(RandomResizedCropWindow(100, 10, never, Stream({})),
            (CropWindow{.top = 43, .left = 0, .height = 13, .width = 10}));
  // Within the range: the whole image.
  EXPECT_EQ(RandomResizedCropWindow(50, 60, never, Stream({})),
            (CropWindow{.top = 0, .left = 0, .height = 50, .width = 60}));
}

TEST(RandomResizedCropWindow, WindowsStayInsideTheImage) {
  for (int64_t seed = 0; seed < 200; ++seed) {
    uint64_t state = static_cast<uint64_t>(seed) * 6364136223846793005ULL + 1442695040888963407ULL;
    const UniformStream uniform = [state](int64_t k) {
      const uint64_t z = (state + static_cast<uint64_t>(k) * 0x9e3779b97f4a7c15ULL) * 0xbf58476d1ce4e5b9ULL;
      return static_cast<double>(z >> 11) * 0x1.0p-53;
    };
    const CropWindow w = RandomResizedCropWindow(37, 91, {}, uniform);
    ASSERT_GT(w.height, 0);
    ASSERT_GT(w.width, 0);
    ASSERT_GE(w.top, 0);
    ASSERT_GE(w.left, 0);
    ASSERT_LE(w.top + w.height, 37);
    ASSERT_LE(w.left + w.width, 91);
  }
}

TEST(RandomResizedCropWindow, OptionsAreChecked) {
  EXPECT_TRUE(CheckRandomResizedCropOptions({}).ok());
  EXPECT_EQ(CheckRandomResizedCropOptions({.scale_min = 0}).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(CheckRandomResizedCropOptions({.scale_min = 0.5, .scale_max = 0.4}).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(CheckRandomResizedCropOptions({.ratio_min = 2, .ratio_max = 1}).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(CheckRandomResizedCropOptions({.attempts = 0}).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(CheckRandomResizedCropOptions({.scale_max = std::nan("")}).code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace sluice
