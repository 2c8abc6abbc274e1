// EncodeJpeg: an HWC uint8 image to JPEG bytes on libjpeg-turbo's libjpeg
// API, as tf.io.encode_jpeg with the options that matter for a corpus:
// quality 1-100 and chroma subsampling (4:2:0, libjpeg's default, or 4:4:4).
// Images of 1 channel are written as grayscale JPEGs, 3 as YCbCr colour.
// Tests, examples and benchmarks use it to make JPEG files at run time, so
// no image data is committed.
// Thread safety: a pure function.
#pragma once

#include <string>

#include "sluice/core/tensor.h"

namespace sluice {

enum class ChromaSubsampling { k420, k444 };

struct EncodeJpegOptions {
  int quality = 90;  // 1 to 100
  ChromaSubsampling subsampling = ChromaSubsampling::k420;
};

// InvalidArgument unless `image` is uint8 [H, W, 1 or 3] with H and W in
// 1..65500 (JPEG's limit) and the quality is in 1..100.
Result<std::string> EncodeJpeg(const Tensor& image, const EncodeJpegOptions& options = {});

}  // namespace sluice
