#include "sluice/ops/jpeg_crop_scale.h"

namespace sluice {
namespace {

constexpr int kDenominator = 8;
// The largest numerator below kDenominator worth decoding at (see the header).
constexpr int kMaxScaledNumerator = 4;

// round(x * numerator / 8), half up, for x >= 0.
int64_t ScaleEdge(int64_t x, int numerator) { return (x * numerator + kDenominator / 2) / kDenominator; }

}  // namespace

int JpegCropScale(const CropWindow& window, int64_t out_height, int64_t out_width) {
  for (int m = 1; m <= kMaxScaledNumerator; ++m) {
    if (window.height * m / kDenominator >= out_height && window.width * m / kDenominator >= out_width) return m;
  }
  return kDenominator;
}

CropWindow ScaleCropWindow(const CropWindow& window, int numerator) {
  const int64_t top = ScaleEdge(window.top, numerator), left = ScaleEdge(window.left, numerator);
  return CropWindow{.top = top,
                    .left = left,
                    .height = ScaleEdge(window.top + window.height, numerator) - top,
                    .width = ScaleEdge(window.left + window.width, numerator) - left};
}

}  // namespace sluice
