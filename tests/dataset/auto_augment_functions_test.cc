#include "sluice/dataset/auto_augment_functions.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <span>
#include <vector>

#include "contract.h"
#include "function_spec_round_trip.h"
#include "ops/image_test_util.h"
#include "sluice/dataset/pipeline.h"
#include "sluice/ops/auto_augment.h"
#include "sluice/ops/counter_rng.h"
#include "sluice/ops/mixup.h"

namespace sluice {
namespace {

using testing::ExpectStatus;
using testing::Ok;

constexpr int64_t kImages = 60;
constexpr int64_t kHeight = 12, kWidth = 10;

// kImages small distinct RGB images, enumerated: (index, image).
Pipeline EnumeratedImages() {
  return Pipeline::FromSlices({{"image", testing::TestPictures(kImages, kHeight, kWidth, 3)}}).Enumerate();
}

std::vector<Tensor> Images(const Pipeline& pipeline) {
  std::vector<Tensor> out;
  for (const Element& e : testing::Collect(pipeline)) out.push_back(e[1]);
  return out;
}

// The op at bin `bin` with the sign draw `sign_draw`, as the policies apply it.
Tensor Applied(const Tensor& image, AugmentPolicy policy, AugmentOp op, int64_t bin, double sign_draw,
               const WarpOptions& warp) {
  double magnitude = AugmentMagnitude(policy, op, bin, 31, kHeight, kWidth);
  if (HasSignedMagnitude(op) && sign_draw < 0.5) magnitude = -magnitude;
  return Ok(ApplyAugmentOp(image, op, magnitude, warp));
}

// Each element applies num_ops ops, each drawn uniformly from the 14 by its
// draw 2k with its sign from draw 2k + 1, in order, at the magnitude bin
// given; the same at any parallelism; the draws reach most ops.
TEST(RandAugmentFunction, AppliesTheDrawnOpsInOrder) {
  const std::vector<Tensor> originals = Images(EnumeratedImages());
  const RandAugmentOptions options{.num_ops = 2,
                                   .magnitude = 13,
                                   .interpolation = WarpInterpolation::kBilinear,
                                   .fill = {5, 6, 7},
                                   .random = {.seed = 3, .index_component = "index"}};
  auto augmented = [&](int64_t parallelism) {
    return Images(
        EnumeratedImages().Map(MakeRandAugmentFunction("image", options), {.num_parallel_calls = parallelism}));
  };
  const std::vector<Tensor> sequential = augmented(0), parallel = augmented(3);
  ASSERT_EQ(sequential.size(), static_cast<size_t>(kImages));
  const std::span<const AugmentOp> space = AugmentSpace(AugmentPolicy::kRandAugment);
  std::set<AugmentOp> drawn;
  const WarpOptions warp{.interpolation = options.interpolation, .fill = options.fill};
  for (int64_t i = 0; i < kImages; ++i) {
    const UniformStream draws = ElementStream(3, i);
    Tensor want = originals[i];
    for (int64_t k = 0; k < 2; ++k) {
      const AugmentOp op = space[static_cast<size_t>(UniformIndex(draws(2 * k), 14))];
      drawn.insert(op);
      want = Applied(want, AugmentPolicy::kRandAugment, op, 13, draws(2 * k + 1), warp);
    }
    EXPECT_TRUE(sequential[i].Equals(want)) << "element " << i;
    EXPECT_TRUE(parallel[i].Equals(sequential[i])) << "element " << i;
  }
  EXPECT_GE(drawn.size(), 12u);
}

// A sub-policy drawn by draw 0; step k applied when draw 1 + k is at most
// its probability, at its bin of 10, its sign from draw 3 + k.
TEST(AutoAugmentFunction, AppliesTheDrawnSubPolicysSteps) {
  const std::vector<Tensor> originals = Images(EnumeratedImages());
  for (const AutoAugmentPolicy policy :
       {AutoAugmentPolicy::kImageNet, AutoAugmentPolicy::kCifar10, AutoAugmentPolicy::kSvhn}) {
    SCOPED_TRACE(AutoAugmentPolicyName(policy));
    const AutoAugmentOptions options{.policy = policy, .random = {.seed = 21, .index_component = "index"}};
    ElementFunctionPtr fn = Ok(MakeAutoAugmentFunction("image", options));
    const std::vector<Tensor> sequential = Images(EnumeratedImages().Map(fn)),
                              parallel = Images(EnumeratedImages().Map(fn, {.num_parallel_calls = 3}));
    ASSERT_EQ(sequential.size(), static_cast<size_t>(kImages));
    const std::span<const SubPolicy> policies = AutoAugmentSubPolicies(policy);
    int64_t steps = 0;
    for (int64_t i = 0; i < kImages; ++i) {
      const UniformStream draws = ElementStream(21, i);
      const SubPolicy& sub = policies[static_cast<size_t>(UniformIndex(draws(0), 25))];
      Tensor want = originals[i];
      for (int64_t k = 0; k < 2; ++k) {
        const AugmentStep& step = sub[static_cast<size_t>(k)];
        if (!(draws(1 + k) <= step.probability)) continue;
        ++steps;
        double magnitude =
            AugmentMagnitude(AugmentPolicy::kRandAugment, step.op, std::max(step.bin, 0), 10, kHeight, kWidth);
        if (HasSignedMagnitude(step.op) && draws(3 + k) < 0.5) magnitude = -magnitude;
        want = Ok(ApplyAugmentOp(want, step.op, magnitude, {}));
      }
      EXPECT_TRUE(sequential[i].Equals(want)) << "element " << i;
      EXPECT_TRUE(parallel[i].Equals(sequential[i])) << "element " << i;
    }
    EXPECT_GT(steps, kImages / 2);
  }
}

// AugMix: chain i of its drawn depth (draw 64 i) and ops (draws 64 i + 1 +
// 3 s: op, bin, sign), mixed with Dirichlet weights from draws 1024 on, in
// float32, truncated.
TEST(AugMixFunction, MixesTheDrawnChains) {
  const std::vector<Tensor> originals = Images(EnumeratedImages());
  const AugMixOptions options{.severity = 4, .alpha = 0.7, .random = {.seed = 5, .index_component = "index"}};
  ElementFunctionPtr fn = Ok(MakeAugMixFunction("image", options));
  const std::vector<Tensor> sequential = Images(EnumeratedImages().Map(fn)),
                            parallel = Images(EnumeratedImages().Map(fn, {.num_parallel_calls = 3}));
  ASSERT_EQ(sequential.size(), static_cast<size_t>(kImages));
  const std::span<const AugmentOp> space = AugmentSpace(AugmentPolicy::kAugMix);
  const WarpOptions warp{.interpolation = WarpInterpolation::kBilinear};
  for (int64_t i = 0; i < kImages; ++i) {
    const UniformStream draws = ElementStream(5, i);
    const Tensor& image = originals[i];
    const double g0 = DrawGamma(0.7, draws, 1024), g1 = DrawGamma(0.7, draws, 1280);
    const auto m0 = static_cast<float>(g0 / (g0 + g1)), m1 = static_cast<float>(g1 / (g0 + g1));
    double gammas[3], sum = 0;
    for (int c = 0; c < 3; ++c) sum += gammas[c] = DrawGamma(0.7, draws, 2048 + 256 * c);
    std::vector<float> mix(static_cast<size_t>(image.NumElements()));
    for (size_t k = 0; k < mix.size(); ++k) mix[k] = m0 * static_cast<float>(image.data<uint8_t>()[k]);
    for (int64_t c = 0; c < 3; ++c) {
      Tensor chain = image;
      const int64_t depth = 1 + UniformIndex(draws(64 * c), 3);
      for (int64_t step = 0; step < depth; ++step) {
        const int64_t k = 64 * c + 1 + 3 * step;
        const AugmentOp op = space[static_cast<size_t>(UniformIndex(draws(k), 13))];
        double magnitude =
            AugmentMagnitude(AugmentPolicy::kAugMix, op, UniformIndex(draws(k + 1), 4), 10, kHeight, kWidth);
        if (HasSignedMagnitude(op) && draws(k + 2) < 0.5) magnitude = -magnitude;
        chain = Ok(ApplyAugmentOp(chain, op, magnitude, warp));
      }
      const float weight = static_cast<float>(gammas[c] / sum) * m1;
      for (size_t k = 0; k < mix.size(); ++k) mix[k] += weight * static_cast<float>(chain.data<uint8_t>()[k]);
    }
    Tensor want = Tensor::AllocateUninitialized(DType::kUInt8, image.shape());
    for (size_t k = 0; k < mix.size(); ++k) want.mutable_data<uint8_t>()[k] = static_cast<uint8_t>(mix[k]);
    EXPECT_TRUE(sequential[i].Equals(want)) << "element " << i;
    EXPECT_TRUE(parallel[i].Equals(sequential[i])) << "element " << i;
  }
}

// One op drawn by draw 0, its bin by draw 1, its sign by draw 2.
TEST(TrivialAugmentWideFunction, AppliesTheDrawnOpAtTheDrawnBin) {
  const std::vector<Tensor> originals = Images(EnumeratedImages());
  const TrivialAugmentWideOptions options{.random = {.seed = 9, .index_component = "index"}};
  auto augmented = [&](int64_t parallelism) {
    return Images(
        EnumeratedImages().Map(MakeTrivialAugmentWideFunction("image", options), {.num_parallel_calls = parallelism}));
  };
  const std::vector<Tensor> sequential = augmented(0), parallel = augmented(2);
  ASSERT_EQ(sequential.size(), static_cast<size_t>(kImages));
  const std::span<const AugmentOp> space = AugmentSpace(AugmentPolicy::kTrivialAugmentWide);
  std::set<int64_t> bins;
  int64_t changed = 0;
  for (int64_t i = 0; i < kImages; ++i) {
    const UniformStream draws = ElementStream(9, i);
    const AugmentOp op = space[static_cast<size_t>(UniformIndex(draws(0), 14))];
    const int64_t bin = UniformIndex(draws(1), 31);
    bins.insert(bin);
    const Tensor want = Applied(originals[i], AugmentPolicy::kTrivialAugmentWide, op, bin, draws(2), {});
    EXPECT_TRUE(sequential[i].Equals(want)) << "element " << i << " " << AugmentOpName(op) << " bin " << bin;
    EXPECT_TRUE(parallel[i].Equals(sequential[i])) << "element " << i;
    changed += !sequential[i].Equals(originals[i]);
  }
  EXPECT_GE(bins.size(), 20u);
  EXPECT_GT(changed, kImages / 2);
}

// Without an index component, map's element seeds: the same output at any
// parallelism, and the images of a batch changed alike (each batch here
// holds one picture twice).
TEST(RandAugmentFunction, DrawsFromMapsSeedsAndChangesABatchAlike) {
  const Tensor pictures = testing::TestPictures(4, kHeight, kWidth, 3);
  const int64_t picture_bytes = kHeight * kWidth * 3;
  Tensor twice = Tensor::Allocate(DType::kUInt8, Shape{8, kHeight, kWidth, 3});
  for (int64_t i = 0; i < 8; ++i) {
    std::copy_n(pictures.data<uint8_t>() + i / 2 * picture_bytes, picture_bytes,
                twice.mutable_data<uint8_t>() + i * picture_bytes);
  }
  const Pipeline batches = Pipeline::FromSlices({{"image", twice}}).Batch({.batch_size = 2}).Seed(17);
  auto augmented = [&](int64_t parallelism) {
    std::vector<Tensor> out;
    for (const Element& e : testing::Collect(
             batches.Map(Ok(MakeRandAugmentFunction("", {.num_ops = 3})), {.num_parallel_calls = parallelism}))) {
      out.push_back(e[0]);
    }
    return out;
  };
  const std::vector<Tensor> sequential = augmented(0), parallel = augmented(2);
  ASSERT_EQ(sequential.size(), 4u);
  int64_t changed = 0;
  for (size_t b = 0; b < 4; ++b) {
    EXPECT_TRUE(parallel[b].Equals(sequential[b])) << b;
    ASSERT_EQ(sequential[b].shape(), (Shape{2, kHeight, kWidth, 3}));
    EXPECT_TRUE(sequential[b].Row(0).Equals(sequential[b].Row(1))) << b;
    changed += !sequential[b].Row(0).Equals(pictures.Row(static_cast<int64_t>(b)));
  }
  EXPECT_GT(changed, 0);
}

TEST(AutoAugmentFunctions, ErrorsAndSpecs) {
  ExpectStatus(MakeRandAugmentFunction("", {.num_ops = 65}).status(), StatusCode::kInvalidArgument,
               "rand_augment: num_ops must be in [0, 64], got 65");
  ExpectStatus(MakeRandAugmentFunction("", {.magnitude = 31}).status(), StatusCode::kInvalidArgument,
               "rand_augment: magnitude must be in [0, num_magnitude_bins = 31), got 31");
  ExpectStatus(MakeRandAugmentFunction("", {.num_magnitude_bins = 1}).status(), StatusCode::kInvalidArgument,
               "rand_augment: num_magnitude_bins must be in [2, 1024], got 1");
  ExpectStatus(MakeTrivialAugmentWideFunction("", {.fill = {1, 2}}).status(), StatusCode::kInvalidArgument,
               "trivial_augment_wide: fill takes one value or three, got 2");
  ExpectStatus(MakeTrivialAugmentWideFunction("", {.fill = {300}}).status(), StatusCode::kInvalidArgument,
               "trivial_augment_wide: fill must be in [0, 255], got 300");
  ElementFunctionPtr rand = Ok(MakeRandAugmentFunction(
      "image", {.num_ops = 1, .magnitude = 5, .num_magnitude_bins = 10, .fill = {128}, .random = {.seed = 4}}));
  EXPECT_EQ(rand->name(), "rand_augment(image, num_ops=1, magnitude=5/10, nearest, fill=[128], seed=4)");
  ExpectStatus(rand->Bind({{"image", DType::kFloat32, Shape{30, 30, 3}}}).status(), StatusCode::kInvalidArgument,
               "rand_augment(image, num_ops=1, magnitude=5/10, nearest, fill=[128], seed=4): component image is "
               "float32[30, 30, 3]; expected a uint8 image of 1 or 3 channels");
  ElementFunctionPtr trivial = Ok(MakeTrivialAugmentWideFunction(
      "",
      {.num_magnitude_bins = 7, .interpolation = WarpInterpolation::kBilinear, .random = {.index_component = "n"}}));
  EXPECT_EQ(trivial->name(), "trivial_augment_wide(bins=7, bilinear, index=n)");
  ElementFunctionPtr automatic = Ok(MakeAutoAugmentFunction(
      "image", {.policy = AutoAugmentPolicy::kSvhn, .interpolation = WarpInterpolation::kBilinear, .fill = {9}}));
  EXPECT_EQ(automatic->name(), "auto_augment(image, policy=svhn, bilinear, fill=[9])");
  ExpectStatus(MakeAutoAugmentFunction("", {.fill = {-1}}).status(), StatusCode::kInvalidArgument,
               "auto_augment: fill must be in [0, 255], got -1");
  ElementFunctionPtr augmix =
      Ok(MakeAugMixFunction("", {.severity = 2, .mixture_width = 4, .chain_depth = 2, .alpha = 0.5, .all_ops = false}));
  EXPECT_EQ(augmix->name(), "augmix(severity=2, width=4, depth=2, alpha=0.5, all_ops=false, bilinear)");
  ExpectStatus(MakeAugMixFunction("", {.severity = 11}).status(), StatusCode::kInvalidArgument,
               "augmix: severity must be in [1, 10], got 11");
  ExpectStatus(MakeAugMixFunction("", {.chain_depth = 0}).status(), StatusCode::kInvalidArgument,
               "augmix: chain_depth must be -1 or in [1, 16], got 0");
  ExpectStatus(MakeAugMixFunction("", {.alpha = 0}).status(), StatusCode::kInvalidArgument,
               "augmix: alpha must be positive and finite, got 0");
  for (const ElementFunctionPtr& f : {rand, trivial, automatic, augmix}) testing::ExpectSpecRoundTrip(*f);
}

}  // namespace
}  // namespace sluice
