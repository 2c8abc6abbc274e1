// GaussianBlur: torchvision's gaussian_blur of an HWC image [H, W, C] (or
// of each image of a batch [N, H, W, C]): the image padded by half a kernel
// on each side in reflect mode, then convolved with the Gaussian kernel
// exp(-x^2 / (2 sigma^2)) sampled at the kernel's integer offsets and
// normalised to sum 1, each channel alone. The 2-D kernel is the outer
// product of a kernel along the height and one along the width, so it is
// applied as two 1-D passes, in float32. uint8 images are rounded to
// nearest (halves to even, as torch.round) and stay uint8; float32 images
// stay float32.
// Errors: InvalidArgument for another dtype, a kernel size that is not odd
// and in [1, 1023], a sigma that is not positive and finite, or an image not
// larger than half a kernel in height or width (reflect padding needs it).
// Thread safety: a pure function; the output is a fresh tensor.
#pragma once

#include <cstdint>
#include <vector>

#include "sluice/core/tensor.h"

namespace sluice {

struct GaussianBlurOptions {
  int64_t kernel_height = 3;  // odd, > 0
  int64_t kernel_width = 3;   // odd, > 0
  double sigma_y = 1;         // > 0
  double sigma_x = 1;         // > 0
};

// torchvision's _get_gaussian_kernel1d: `size` weights, summing to 1.
std::vector<float> GaussianKernel1d(int64_t size, double sigma);

Status CheckGaussianKernelSize(int64_t height, int64_t width);

Result<Tensor> GaussianBlur(const Tensor& images, const GaussianBlurOptions& options);

}  // namespace sluice
