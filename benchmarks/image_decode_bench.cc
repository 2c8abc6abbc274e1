// decode_jpeg throughput on one thread: images/s of DecodeJpeg
// (ops/decode_jpeg.h) decoding one JPEG file from memory, for each DCT
// method and the scaled decode, as Google Benchmark cases. run_image.sh makes
// the file (500x375, 4:2:0, quality 90) and runs libjpeg-turbo's tjbench on
// it in the same run, for the ratio. Three more cases compare ways to get
// decode_jpeg_random_crop's output, each window resized to 224x224
// (antialiased bilinear) over the same RandomResizedCrop windows
// (ops/random_resized_crop.h, default scale and ratio), window k drawn from
// stream k: the crop-window decode (DecodeJpegCropRows, the window resized in
// place by ResizeImageWindow) with the scaled IDCT (ops/jpeg_crop_scale.h),
// the same without it, and a full decode then crop.
//
// Usage: image_decode_bench --jpeg FILE [Google Benchmark flags]
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

#include "sluice/ops/counter_rng.h"
#include "sluice/ops/crop_image.h"
#include "sluice/ops/decode_jpeg.h"
#include "sluice/ops/random_resized_crop.h"
#include "sluice/ops/resize_image.h"

namespace sluice {
namespace {

void DecodeJpegCase(benchmark::State& state, const std::string& jpeg, DecodeJpegOptions options) {
  int64_t pixels = 0;
  for (auto _ : state) {
    Result<Tensor> image = DecodeJpeg(jpeg, options);
    if (!image.ok()) {
      state.SkipWithError(image.status().ToString().c_str());
      return;
    }
    pixels += image->dim(0) * image->dim(1);
    benchmark::DoNotOptimize(image->raw_data());
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["MP/s"] = benchmark::Counter(static_cast<double>(pixels) / 1e6, benchmark::Counter::kIsRate);
}

// The k-th RandomResizedCrop window for an image of height x width.
CropWindow WindowAt(int64_t k, int64_t height, int64_t width) {
  return RandomResizedCropWindow(height, width, {}, [k](int64_t i) {
    return UniformAt(Mix64(static_cast<uint64_t>(k)), i);
  });
}

enum class CropDecode { kScaled, kWindow, kFullThenCrop };

void CropWindowCase(benchmark::State& state, const std::string& jpeg, CropDecode how) {
  constexpr int64_t kOut = 224;
  const CropResizeTarget target =
      how == CropDecode::kScaled ? CropResizeTarget{.height = kOut, .width = kOut} : CropResizeTarget{};
  int64_t k = 0;
  for (auto _ : state) {
    const int64_t window_index = k++;
    auto choose = [&](int64_t h, int64_t w) -> Result<CropWindow> { return WindowAt(window_index, h, w); };
    const ResizeOptions resize{.height = kOut, .width = kOut, .antialias = true};
    Result<Tensor> image = InvalidArgumentError("not decoded");
    if (how == CropDecode::kFullThenCrop) {
      // As torchvision does it: the whole image, a copy of the window, its resize.
      image = DecodeJpeg(jpeg, {.channels = 3});
      if (image.ok()) image = CropImage(*image, WindowAt(window_index, image->dim(0), image->dim(1)));
      if (image.ok()) image = ResizeImage(*image, resize);
    } else {
      // As decode_jpeg_random_crop does it: the window's rows, resized in place.
      Result<DecodedJpegWindow> decoded = DecodeJpegCropRows(jpeg, choose, {.channels = 3}, target);
      image = decoded.ok() ? ResizeImageWindow(decoded->rows, decoded->window, resize) : decoded.status();
    }
    if (!image.ok()) {
      state.SkipWithError(image.status().ToString().c_str());
      return;
    }
    benchmark::DoNotOptimize(image->raw_data());
  }
  state.SetItemsProcessed(state.iterations());
}

}  // namespace
}  // namespace sluice

int main(int argc, char** argv) {
  std::string path;
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--jpeg") == 0 && i + 1 < argc) {
      path = argv[++i];
    } else {
      argv[kept++] = argv[i];
    }
  }
  argc = kept;
  if (path.empty()) {
    std::fprintf(stderr, "usage: image_decode_bench --jpeg FILE [benchmark flags]\n");
    return 2;
  }
  std::ifstream in(path, std::ios::binary);
  std::stringstream bytes;
  bytes << in.rdbuf();
  const std::string jpeg = bytes.str();
  if (jpeg.empty()) {
    std::fprintf(stderr, "error: cannot read %s\n", path.c_str());
    return 1;
  }
  using sluice::DecodeJpegOptions;
  using sluice::JpegDctMethod;
  // Wall-clock rates, as tjbench measures.
  benchmark::RegisterBenchmark("decode_jpeg/accurate", sluice::DecodeJpegCase, jpeg,
                               DecodeJpegOptions{.channels = 3})
      ->UseRealTime();
  benchmark::RegisterBenchmark("decode_jpeg/fast", sluice::DecodeJpegCase, jpeg,
                               DecodeJpegOptions{.channels = 3, .dct_method = JpegDctMethod::kFast})
      ->UseRealTime();
  benchmark::RegisterBenchmark("decode_jpeg/ratio2", sluice::DecodeJpegCase, jpeg,
                               DecodeJpegOptions{.channels = 3, .ratio = 2})
      ->UseRealTime();
  using sluice::CropDecode;
  benchmark::RegisterBenchmark("crop_window/fused_scaled", sluice::CropWindowCase, jpeg, CropDecode::kScaled)
      ->UseRealTime();
  benchmark::RegisterBenchmark("crop_window/fused_unscaled", sluice::CropWindowCase, jpeg, CropDecode::kWindow)
      ->UseRealTime();
  benchmark::RegisterBenchmark("crop_window/full_then_crop", sluice::CropWindowCase, jpeg,
                               CropDecode::kFullThenCrop)
      ->UseRealTime();
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
