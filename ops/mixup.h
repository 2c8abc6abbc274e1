// Batch mixing as timm's Mixup and CutMix do it (timm.data.Mixup, batch
// mode), on a float32 batch of images [N, ...] and its labels: every image
// mixed with the image at the mirrored position of the batch (index N-1-i,
// timm's x.flip(0)), and the labels mixed alike:
//   MixBatchImages: x * lam + flip(x) * (1 - lam) (Mixup);
//   PasteFlippedWindow: each image's window replaced by the flipped batch's
//     (CutMix), the window from CutmixWindow;
//   MixBatchLabels: class ids to one-hot rows with label smoothing (off =
//     smoothing / K, on = 1 - smoothing + off), or float [N, K] rows as
//     they are, then y * lam + flip(y) * (1 - lam).
// Thread safety: pure functions; outputs are fresh tensors.
#pragma once

#include <cstdint>

#include "sluice/core/tensor.h"
#include "sluice/ops/crop_image.h"
#include "sluice/ops/crop_mirror_normalize.h"
#include "sluice/ops/random_resized_crop.h"

namespace sluice {

// A draw from Gamma(alpha, 1), alpha > 0, by Marsaglia and Tsang's method,
// from the uniform draws first, first + 1, ... of `uniform` (fewer than 200
// of them).
double DrawGamma(double alpha, const UniformStream& uniform, int64_t first);

// A draw from Beta(alpha, alpha), alpha > 0 (timm's np.random.beta(alpha,
// alpha)): X / (X + Y) of two Gamma(alpha) draws by Marsaglia and Tsang's
// method, from the uniform draws first, first + 1, ... of `uniform` (fewer
// than 2048 of them).
double DrawSymmetricBeta(double alpha, const UniformStream& uniform, int64_t first);

// InvalidArgument unless `batch` is float32 of rank >= 1.
Result<Tensor> MixBatchImages(const Tensor& batch, double lam);

// The window timm's rand_bbox cuts from an image of height x width for a
// mixing weight lam: a box of int(height * sqrt(1 - lam)) x int(width *
// sqrt(1 - lam)) centred on (floor(u_y * height), floor(u_x * width)),
// clipped to the image (u_y, u_x uniform in [0, 1)). It may be empty.
CropWindow CutmixWindow(int64_t height, int64_t width, double lam, double u_y, double u_x);

// The batch [N, H, W, C] (kHWC) or [N, C, H, W] (kCHW), float32, with
// `window` of every image taken from the image at the mirrored position.
Result<Tensor> PasteFlippedWindow(const Tensor& batch, const CropWindow& window, ImageLayout layout);

// `labels`: int32/int64 class ids [N] in [0, num_classes), or float32 [N, K]
// rows (num_classes 0 or K; smoothing then not applied). float32 [N, K] out.
Result<Tensor> MixBatchLabels(const Tensor& labels, int64_t num_classes, double smoothing, double lam);

}  // namespace sluice
