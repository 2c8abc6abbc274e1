#include "sluice/ops/auto_augment.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string_view>

#include "ops/auto_augment_golden.h"
#include "ops/op_test_util.h"

namespace sluice {
namespace {

constexpr AugmentOp kAllOps[] = {AugmentOp::kIdentity,     AugmentOp::kShearX,     AugmentOp::kShearY,
                                 AugmentOp::kTranslateX,   AugmentOp::kTranslateY, AugmentOp::kRotate,
                                 AugmentOp::kBrightness,   AugmentOp::kColor,      AugmentOp::kContrast,
                                 AugmentOp::kSharpness,    AugmentOp::kPosterize,  AugmentOp::kSolarize,
                                 AugmentOp::kAutoContrast, AugmentOp::kEqualize,   AugmentOp::kInvert};

AugmentOp OpNamed(std::string_view name) {
  for (const AugmentOp op : kAllOps) {
    if (AugmentOpName(op) == name) return op;
  }
  ADD_FAILURE() << "no op " << name;
  return AugmentOp::kIdentity;
}

Tensor GoldenImage() {
  return Tensor::FromVector<uint8_t>(golden::kImage, Shape{golden::kHeight, golden::kWidth, golden::kChannels});
}

// Every op of the family at positive and negative magnitudes, nearest and
// bilinear, with and without fill: torchvision's _apply_op's values
// (scripts/make_auto_augment_golden.py), to the level; bilinear ones within
// a level (torch's vectorised grid_sample sums its four weights in another
// order, which can move a value on a rounding tie).
TEST(AutoAugment, OpsGiveTorchvisionsValues) {
  const Tensor image = GoldenImage();
  for (const golden::OpCase& c : golden::kOpCases) {
    SCOPED_TRACE(::testing::Message() << c.op << " " << c.magnitude << " " << c.interpolation << " fill "
                                      << c.fill.size());
    const WarpOptions warp{.interpolation = *ParseWarpInterpolation(c.interpolation), .fill = c.fill};
    Result<Tensor> out = ApplyAugmentOp(image, OpNamed(c.op), c.magnitude, warp);
    testing::ExpectTensorNear(out, Tensor::FromVector<uint8_t>(c.expected, image.shape()),
                              warp.interpolation == WarpInterpolation::kBilinear ? 1 : 0);
  }
}

TEST(AutoAugment, EqualizeGivesTorchvisionsValues) {
  const Shape shape{24, 24, golden::kChannels};
  testing::ExpectTensorNear(
      ApplyAugmentOp(Tensor::FromVector<uint8_t>(golden::kEqualizeImage, shape), AugmentOp::kEqualize, 0, {}),
      Tensor::FromVector<uint8_t>(golden::kEqualizeExpected, shape));
}

// A batch is changed as each of its images alone would be.
TEST(AutoAugment, BatchesAreChangedAlike) {
  const Tensor image = GoldenImage();
  std::vector<uint8_t> two(golden::kImage);
  two.insert(two.end(), golden::kImage.rbegin(), golden::kImage.rend());
  const Tensor batch = Tensor::FromVector<uint8_t>(two, Shape{2, golden::kHeight, golden::kWidth, golden::kChannels});
  for (const AugmentOp op : kAllOps) {
    SCOPED_TRACE(AugmentOpName(op));
    const WarpOptions warp{.interpolation = WarpInterpolation::kBilinear, .fill = {7}};
    Result<Tensor> whole = ApplyAugmentOp(batch, op, 0.4, warp);
    ASSERT_TRUE(whole.ok()) << whole.status();
    for (int64_t i = 0; i < 2; ++i) {
      Result<Tensor> alone = ApplyAugmentOp(batch.Slice(i, i + 1).Reshaped(image.shape()).value(), op, 0.4, warp);
      ASSERT_TRUE(alone.ok()) << alone.status();
      testing::ExpectTensorNear(whole->Slice(i, i + 1).Reshaped(image.shape()), *alone);
    }
  }
}

// The magnitudes of RandAugment's and TrivialAugmentWide's spaces, every bin,
// as torch's float32 linspace and posterize tables make them, to float32's
// last bit (torch's kernel computes some of them without a fused
// multiply-add).
TEST(AutoAugment, MagnitudesAreTorchvisionsTables) {
  for (const golden::MagnitudeCase& c : golden::kMagnitudeCases) {
    const std::string_view name = c.policy;
    const AugmentPolicy policy = name == "kRandAugment" ? AugmentPolicy::kRandAugment
                                 : name == "kAugMix"    ? AugmentPolicy::kAugMix
                                                        : AugmentPolicy::kTrivialAugmentWide;
    EXPECT_NEAR(AugmentMagnitude(policy, OpNamed(c.op), c.bin, c.num_bins, c.height, c.width), c.magnitude,
                std::abs(c.magnitude) * 1.2e-7)
        << c.policy << " " << c.op << " bin " << c.bin << " of " << c.num_bins;
  }
}

TEST(AutoAugment, SpacesHoldTorchvisionsOpsInItsOrder) {
  for (const AugmentPolicy policy : {AugmentPolicy::kRandAugment, AugmentPolicy::kTrivialAugmentWide}) {
    std::string names;
    for (const AugmentOp op : AugmentSpace(policy)) names += std::string(AugmentOpName(op)) + " ";
    EXPECT_EQ(names,
              "Identity ShearX ShearY TranslateX TranslateY Rotate Brightness Color Contrast Sharpness Posterize "
              "Solarize AutoContrast Equalize ");
  }
  std::string augmix;
  for (const AugmentOp op : AugmentSpace(AugmentPolicy::kAugMix)) augmix += std::string(AugmentOpName(op)) + " ";
  EXPECT_EQ(augmix,
            "ShearX ShearY TranslateX TranslateY Rotate Posterize Solarize AutoContrast Equalize Brightness Color "
            "Contrast Sharpness ");
  EXPECT_FALSE(HasMagnitude(AugmentOp::kEqualize));
  EXPECT_TRUE(HasSignedMagnitude(AugmentOp::kRotate));
  EXPECT_FALSE(HasSignedMagnitude(AugmentOp::kSolarize));
  EXPECT_FALSE(HasSignedMagnitude(AugmentOp::kPosterize));
}

// AutoAugment's 25 sub-policies of each policy, step by step, as
// torchvision's _get_policies lists them.
TEST(AutoAugment, SubPoliciesAreTorchvisions) {
  for (const golden::SubPolicies& want : golden::kAutoAugmentPolicies) {
    SCOPED_TRACE(want.policy);
    Result<AutoAugmentPolicy> policy = ParseAutoAugmentPolicy(want.policy);
    ASSERT_TRUE(policy.ok()) << policy.status();
    EXPECT_EQ(AutoAugmentPolicyName(*policy), want.policy);
    const std::span<const SubPolicy> got = AutoAugmentSubPolicies(*policy);
    ASSERT_EQ(got.size(), want.steps.size());
    for (size_t i = 0; i < got.size(); ++i) {
      for (size_t k = 0; k < 2; ++k) {
        EXPECT_EQ(AugmentOpName(got[i][k].op), want.steps[i][k].op) << i << " " << k;
        EXPECT_EQ(got[i][k].probability, want.steps[i][k].probability) << i << " " << k;
        EXPECT_EQ(got[i][k].bin, want.steps[i][k].bin) << i << " " << k;
      }
    }
  }
  EXPECT_EQ(ParseAutoAugmentPolicy("reduced_imagenet").status().message(),
            "policy must be \"imagenet\", \"cifar10\" or \"svhn\", got \"reduced_imagenet\"");
}

TEST(AutoAugment, TakesUint8ImagesOnly) {
  testing::ExpectInvalidArgument(
      ApplyAugmentOp(Tensor::FromVector<float>({1, 2, 3}, Shape{1, 1, 3}), AugmentOp::kRotate, 3, {}),
      "Rotate: expected a uint8 image, got float32[1, 1, 3]");
}

}  // namespace
}  // namespace sluice
