// The image functions that follow a decode in a training input, one thread,
// as Google Benchmark cases on one 224x224x3 image (a 300x330 window for the
// resizes): antialiased bilinear and bicubic resizes to 224x224 and a
// nearest-neighbour one (1 and 3 channels, uint8), crop_mirror_normalize to CHW and HWC, mirrored
// or not (float32 and uint8 in), a left-right flip (float32 and uint8), the
// colour adjustments on a uint8 image, SimCLR's Gaussian blur (kernel 23,
// sigma 1) and solarize on a uint8 image, and CIFAR's padded random crop (a
// 32x32 window of a 32x32x3 image padded by 4, constant and reflect), and
// each op of RandAugment's space at its magnitude bin 9 of 31 (nearest
// warps, no fill) on a uint8 image. The pixels are fixed pseudo-random
// values.
//
// Usage: image_ops_bench [Google Benchmark flags], e.g.
//   --benchmark_repetitions=5 --benchmark_report_aggregates_only=false
#include <benchmark/benchmark.h>

#include <cstdint>
#include <functional>
#include <string>
#include <random>
#include <vector>

#include "sluice/ops/adjust_color.h"
#include "sluice/ops/auto_augment.h"
#include "sluice/ops/crop_mirror_normalize.h"
#include "sluice/ops/flip_image.h"
#include "sluice/ops/gaussian_blur.h"
#include "sluice/ops/pad_image.h"
#include "sluice/ops/resize_image.h"
#include "sluice/ops/solarize.h"

namespace sluice {
namespace {

Tensor Picture(DType dtype, int64_t height, int64_t width, int64_t channels) {
  Tensor image = Tensor::Allocate(dtype, Shape{height, width, channels});
  std::mt19937 random(1);
  for (int64_t i = 0; i < image.NumElements(); ++i) {
    const auto value = static_cast<uint8_t>(random());
    if (dtype == DType::kUInt8) image.mutable_data<uint8_t>()[i] = value;
    else image.mutable_data<float>()[i] = value;
  }
  return image;
}

void Run(benchmark::State& state, const std::function<Result<Tensor>()>& op) {
  for (auto _ : state) {
    Result<Tensor> out = op();
    if (!out.ok()) {
      state.SkipWithError(out.status().ToString().c_str());
      return;
    }
    benchmark::DoNotOptimize(out->raw_data());
  }
  state.SetItemsProcessed(state.iterations());
}

void Resize(benchmark::State& state, int64_t channels, ResizeMethod method) {
  const Tensor image = Picture(DType::kUInt8, 300, 330, channels);
  const ResizeOptions options{.height = 224, .width = 224, .method = method, .antialias = true};
  Run(state, [&] { return ResizeImage(image, options); });
}

void Normalize(benchmark::State& state, DType dtype, ImageLayout layout, bool mirror) {
  const Tensor image = Picture(dtype, 224, 224, 3);
  const CropMirrorNormalizeOptions options{.mean = {123.7f, 116.3f, 103.5f}, .std = {58.4f, 57.1f, 57.4f},
                                           .mirror = mirror, .layout = layout};
  Run(state, [&] { return CropMirrorNormalize(image, options); });
}

void Flip(benchmark::State& state, DType dtype) {
  const Tensor image = Picture(dtype, 224, 224, 3);
  Run(state, [&] { return FlipImage(image, FlipDirection::kLeftRight); });
}

void Adjust(benchmark::State& state, ColorProperty property, double factor) {
  const Tensor image = Picture(DType::kUInt8, 224, 224, 3);
  const std::vector<ColorAdjustment> adjustments{{property, factor}};
  Run(state, [&] { return AdjustColor(image, adjustments); });
}

void Blur(benchmark::State& state) {
  const Tensor image = Picture(DType::kUInt8, 224, 224, 3);
  const GaussianBlurOptions simclr{.kernel_height = 23, .kernel_width = 23, .sigma_y = 1, .sigma_x = 1};
  Run(state, [&] { return GaussianBlur(image, simclr); });
}

void Solarization(benchmark::State& state) {
  const Tensor image = Picture(DType::kUInt8, 224, 224, 3);
  Run(state, [&] { return Solarize(image, 128, 255); });
}

// A 32x32 window at (3, 5) of the 32x32x3 image padded by 4 on every side.
void PaddedCrop(benchmark::State& state, PaddingMode mode) {
  const Tensor image = Picture(DType::kUInt8, 32, 32, 3);
  std::vector<int64_t> rows(32), columns(32);
  for (int64_t i = 0; i < 32; ++i) {
    rows[i] = PaddedSourceIndex(3 + i, 32, 4, mode);
    columns[i] = PaddedSourceIndex(5 + i, 32, 4, mode);
  }
  Run(state, [&] { return GatherImagePixels(image, rows, columns, 0); });
}

void AugmentOperation(benchmark::State& state, AugmentOp op) {
  const Tensor image = Picture(DType::kUInt8, 224, 224, 3);
  const double magnitude = AugmentMagnitude(AugmentPolicy::kRandAugment, op, 9, 31, 224, 224);
  Run(state, [&] { return ApplyAugmentOp(image, op, magnitude, {}); });
}

}  // namespace
}  // namespace sluice

int main(int argc, char** argv) {
  using namespace sluice;
  for (int64_t channels : {1, 3}) {
    const std::string suffix = channels == 1 ? "/1ch" : "/3ch";
    benchmark::RegisterBenchmark(("resize_antialias_224" + suffix).c_str(), Resize, channels, ResizeMethod::kBilinear)
        ->UseRealTime();
    benchmark::RegisterBenchmark(("resize_nearest_224" + suffix).c_str(), Resize, channels, ResizeMethod::kNearest)
        ->UseRealTime();
    benchmark::RegisterBenchmark(("resize_bicubic_antialias_224" + suffix).c_str(), Resize, channels,
                                 ResizeMethod::kBicubic)
        ->UseRealTime();
  }
  for (DType dtype : {DType::kFloat32, DType::kUInt8}) {
    const std::string type = dtype == DType::kFloat32 ? "float32" : "uint8";
    for (ImageLayout layout : {ImageLayout::kCHW, ImageLayout::kHWC}) {
      for (bool mirror : {false, true}) {
        const std::string name = "crop_mirror_normalize/" + type + "/" + std::string(ImageLayoutName(layout)) +
                                 (mirror ? "/mirror" : "");
        benchmark::RegisterBenchmark(name.c_str(), Normalize, dtype, layout, mirror)->UseRealTime();
      }
    }
    benchmark::RegisterBenchmark(("flip_left_right/" + type).c_str(), Flip, dtype)->UseRealTime();
  }
  benchmark::RegisterBenchmark("adjust_color/uint8/brightness", Adjust, ColorProperty::kBrightness, 1.2)
      ->UseRealTime();
  benchmark::RegisterBenchmark("adjust_color/uint8/contrast", Adjust, ColorProperty::kContrast, 0.8)->UseRealTime();
  benchmark::RegisterBenchmark("adjust_color/uint8/saturation", Adjust, ColorProperty::kSaturation, 1.3)
      ->UseRealTime();
  benchmark::RegisterBenchmark("adjust_color/uint8/hue", Adjust, ColorProperty::kHue, 0.1)->UseRealTime();
  benchmark::RegisterBenchmark("gaussian_blur/uint8/k23", Blur)->UseRealTime();
  benchmark::RegisterBenchmark("solarize/uint8", Solarization)->UseRealTime();
  benchmark::RegisterBenchmark("random_crop_32_pad4/constant", PaddedCrop, PaddingMode::kConstant)->UseRealTime();
  benchmark::RegisterBenchmark("random_crop_32_pad4/reflect", PaddedCrop, PaddingMode::kReflect)->UseRealTime();
  for (const AugmentOp op : AugmentSpace(AugmentPolicy::kRandAugment)) {
    if (op == AugmentOp::kIdentity) continue;
    benchmark::RegisterBenchmark(("augment_op/" + std::string(AugmentOpName(op))).c_str(), AugmentOperation, op)
        ->UseRealTime();
  }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
