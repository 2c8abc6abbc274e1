#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "contract.h"
#include "function_spec_round_trip.h"
#include "sluice/dataset/image_functions.h"
#include "sluice/dataset/pipeline.h"

namespace sluice {
namespace {

using testing::ExpectStatus;
using testing::Ok;

constexpr int64_t kImages = 64, kBatch = 8, kClasses = 5;

// kImages float32 CHW images [3, 4, 6] of distinct values, labels i % 5.
Pipeline Batches() {
  Tensor images = Tensor::Allocate(DType::kFloat32, Shape{kImages, 3, 4, 6});
  for (int64_t i = 0; i < images.NumElements(); ++i) images.mutable_data<float>()[i] = static_cast<float>(i);
  std::vector<int64_t> labels(kImages);
  for (int64_t i = 0; i < kImages; ++i) labels[i] = i % kClasses;
  return Pipeline::FromSlices({{"image", images}, {"label", Tensor::FromVector<int64_t>(labels)}})
      .Batch({.batch_size = kBatch});
}

std::vector<Element> Mixed(const MixupOptions& options, int64_t parallelism = 0) {
  return testing::Collect(Batches().Map(MakeMixupFunction("image", options), {.num_parallel_calls = parallelism}));
}

// Mixup: each batch's images are lam * x + (1 - lam) * flip(x), its labels
// lam * onehot(y) + (1 - lam) * onehot(flip(y)), one lam per batch, drawn
// anew per batch; the same at any parallelism.
TEST(MixupFunction, MixupMixesImagesAndLabelsByOneLam) {
  const std::vector<Element> originals = testing::Collect(Batches());
  const MixupOptions options{
      .label_component = "label", .num_classes = kClasses, .mixup_alpha = 0.4, .label_smoothing = 0, .seed = 3};
  const std::vector<Element> mixed = Mixed(options), parallel = Mixed(options, 3);
  ASSERT_EQ(mixed.size(), originals.size());
  std::vector<double> lams;
  for (size_t b = 0; b < mixed.size(); ++b) {
    SCOPED_TRACE(b);
    const Tensor& x = originals[b][0];
    const int64_t* y = originals[b][1].data<int64_t>();
    const Tensor& images = mixed[b][0];
    const Tensor& labels = mixed[b][1];
    ASSERT_EQ(labels.shape(), (Shape{kBatch, kClasses}));
    // Row 0 mixes label 0 with label 7 % 5 = 2: lam is the weight of class y[0].
    const double lam = labels.data<float>()[y[0]];
    lams.push_back(lam);
    const int64_t image = x.NumElements() / kBatch;
    for (int64_t i = 0; i < kBatch; ++i) {
      for (int64_t k = 0; k < image; k += 7) {
        const double want =
            lam * x.data<float>()[i * image + k] + (1 - lam) * x.data<float>()[(kBatch - 1 - i) * image + k];
        ASSERT_NEAR(images.data<float>()[i * image + k], want, 1e-3 * std::abs(want) + 1e-3);
      }
      for (int64_t c = 0; c < kClasses; ++c) {
        const double want = lam * (y[i] == c) + (1 - lam) * (y[kBatch - 1 - i] == c);
        ASSERT_NEAR(labels.data<float>()[i * kClasses + c], want, 1e-6);
      }
    }
    EXPECT_TRUE(parallel[b][0].Equals(images));
    EXPECT_TRUE(parallel[b][1].Equals(labels));
  }
  EXPECT_NE(lams[0], lams[1]);
}

// CutMix: the images differ from the originals only in one window, which
// holds the flipped batch's pixels, and lam is the share of the image kept.
TEST(MixupFunction, CutmixPastesOneWindowAndKeepsItsShareAsLam) {
  const std::vector<Element> originals = testing::Collect(Batches());
  const std::vector<Element> mixed = Mixed({.label_component = "label",
                                            .num_classes = kClasses,
                                            .mixup_alpha = 0,
                                            .cutmix_alpha = 1,
                                            .label_smoothing = 0,
                                            .seed = 4});
  int64_t pasted = 0;
  for (size_t b = 0; b < mixed.size(); ++b) {
    SCOPED_TRACE(b);
    const Tensor& x = originals[b][0];
    const Tensor& images = mixed[b][0];
    int64_t changed = 0;
    // Pixels of image 0 taken from image 7, per (row, column) of its 4x6 plane.
    for (int64_t p = 0; p < 24; ++p) {
      const bool from_flipped = images.data<float>()[p] == x.data<float>()[7 * 72 + p];
      const bool kept = images.data<float>()[p] == x.data<float>()[p];
      ASSERT_TRUE(from_flipped || kept) << p;
      for (int64_t c = 1; c < 3; ++c) {  // the same window in every channel
        ASSERT_EQ(images.data<float>()[c * 24 + p] == x.data<float>()[7 * 72 + c * 24 + p], from_flipped);
      }
      changed += from_flipped;
    }
    const int64_t* y = originals[b][1].data<int64_t>();
    const double lam = mixed[b][1].data<float>()[y[0]];
    EXPECT_NEAR(lam, 1 - changed / 24.0, 1e-6);
    pasted += changed > 0;
  }
  EXPECT_GT(pasted, 0);
}

// probability 0 leaves every batch as it is, its labels smoothed one-hot rows.
TEST(MixupFunction, ProbabilityZeroKeepsTheImages) {
  const std::vector<Element> originals = testing::Collect(Batches());
  const std::vector<Element> kept = Mixed({.label_component = "label",
                                           .num_classes = kClasses,
                                           .cutmix_alpha = 1,
                                           .probability = 0,
                                           .label_smoothing = 0.1,
                                           .seed = 1});
  for (size_t b = 0; b < kept.size(); ++b) {
    EXPECT_TRUE(kept[b][0].Equals(originals[b][0]));
    const int64_t y = originals[b][1].data<int64_t>()[0];
    EXPECT_NEAR(kept[b][1].data<float>()[y], 0.9 + 0.1 / kClasses, 1e-6);
    EXPECT_NEAR(kept[b][1].data<float>()[(y + 1) % kClasses], 0.1 / kClasses, 1e-6);
  }
}

TEST(MixupFunction, ErrorsAndSpecs) {
  ExpectStatus(MakeMixupFunction("image", {}).status(), StatusCode::kInvalidArgument,
               "mixup: name the image and the label components");
  ExpectStatus(MakeMixupFunction("image", {.label_component = "label", .mixup_alpha = 0}).status(),
               StatusCode::kInvalidArgument, "mixup: mixup_alpha or cutmix_alpha must be above 0");
  ExpectStatus(MakeMixupFunction("image", {.label_component = "label", .probability = 2}).status(),
               StatusCode::kInvalidArgument, "mixup: probability must be in [0, 1], got 2");
  ExpectStatus(MakeMixupFunction("image", {.label_component = "label", .label_smoothing = 1}).status(),
               StatusCode::kInvalidArgument, "mixup: label_smoothing must be in [0, 1), got 1");
  ElementFunctionPtr fn = Ok(MakeMixupFunction("image", {.label_component = "label", .num_classes = 10, .seed = 2}));
  EXPECT_EQ(fn->name(),
            "mixup(image, label, mixup_alpha=1, cutmix_alpha=0, switch=0.5, p=1, smoothing=0.1, classes=10, CHW, "
            "seed=2)");
  const BoundElementFunction bound =
      Ok(fn->Bind({{"image", DType::kFloat32, PartialShape{-1, 3, 8, 8}}, {"label", DType::kInt64, PartialShape{-1}}}));
  EXPECT_EQ(bound.output_spec[1], (ComponentSpec{"label", DType::kFloat32, PartialShape{-1, 10}}));
  EXPECT_FALSE(bound.apply(Element{}).ok());  // only under map
  ExpectStatus(fn->Bind({{"image", DType::kFloat32, Shape{3, 8, 8}}, {"label", DType::kInt64, Shape{}}}).status(),
               StatusCode::kInvalidArgument,
               "mixup(image, label, mixup_alpha=1, cutmix_alpha=0, switch=0.5, p=1, smoothing=0.1, classes=10, CHW, "
               "seed=2): component image is float32[3, 8, 8]; expected a float32 batch of images [N, C, H, W] (map it "
               "after batch)");
  ElementFunctionPtr rows =
      Ok(MakeMixupFunction("x", {.label_component = "y", .cutmix_alpha = 1, .layout = ImageLayout::kHWC}));
  EXPECT_EQ(
      Ok(rows->Bind({{"x", DType::kFloat32, Shape{4, 8, 8, 3}}, {"y", DType::kFloat32, Shape{4, 7}}})).output_spec[1],
      (ComponentSpec{"y", DType::kFloat32, PartialShape{4, 7}}));
  ExpectStatus(rows->Bind({{"x", DType::kFloat32, Shape{4, 8, 8, 3}}, {"y", DType::kInt64, Shape{4}}}).status(),
               StatusCode::kInvalidArgument,
               "mixup(x, y, mixup_alpha=1, cutmix_alpha=1, switch=0.5, p=1, smoothing=0.1, HWC): the labels y are "
               "class ids; num_classes must be set");
  testing::ExpectSpecRoundTrip(*fn);
  testing::ExpectSpecRoundTrip(*rows);
}

}  // namespace
}  // namespace sluice
