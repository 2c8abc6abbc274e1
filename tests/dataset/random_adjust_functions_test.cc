#include "sluice/dataset/random_adjust_functions.h"

#include <google/protobuf/text_format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <vector>

#include "contract.h"
#include "function_spec_round_trip.h"
#include "ops/image_test_util.h"
#include "sluice/dataset/builtin_functions.h"
#include "sluice/dataset/pipeline.h"
#include "sluice/dataset/pipeline_spec.pb.h"
#include "sluice/ops/blend_image.h"
#include "sluice/ops/tone_curve.h"

namespace sluice {
namespace {

using testing::ExpectStatus;
using testing::Ok;

constexpr int64_t kImages = 40;

Pipeline EnumeratedImages(int64_t height = 6, int64_t width = 7) {
  return Pipeline::FromSlices({{"image", testing::TestPictures(kImages, height, width, 3)}}).Enumerate();
}

// The function a spec message's text describes.
Result<ElementFunctionPtr> FromText(const std::string& text) {
  spec::ElementFunction node;
  if (!google::protobuf::TextFormat::ParseFromString(text, &node)) return InvalidArgumentError("bad text: ", text);
  return ElementFunctionFromSpec(node);
}

std::vector<Tensor> Images(const Pipeline& pipeline) {
  std::vector<Tensor> out;
  for (const Element& e : testing::Collect(pipeline)) out.push_back(e[1]);
  return out;
}

// Each function changes exactly the elements whose draw 0 is below its
// probability, by its op; the same at any parallelism.
TEST(RandomAdjustFunctions, ChangeTheElementsTheyDraw) {
  const std::vector<Tensor> originals = Images(EnumeratedImages());
  const RandomSource random{.seed = 6, .index_component = "index"};
  struct Case {
    ElementFunctionPtr fn;
    std::function<Result<Tensor>(const Tensor&)> op;
  };
  const std::vector<Case> cases = {
      {Ok(MakeRandomPosterizeFunction("image", {.bits = 3, .probability = 0.4, .random = random})),
       [](const Tensor& t) { return Posterize(t, 3); }},
      {Ok(MakeRandomEqualizeFunction("image", {.probability = 0.4, .random = random})),
       [](const Tensor& t) { return Equalize(t); }},
      {Ok(MakeRandomAutocontrastFunction("image", {.probability = 0.4, .random = random})),
       [](const Tensor& t) { return Autocontrast(t); }},
      {Ok(MakeRandomAdjustSharpnessFunction("image", {.sharpness_factor = 3, .probability = 0.4, .random = random})),
       [](const Tensor& t) { return BlendImage(t, BlendTarget::kSharpness, 3); }},
      {Ok(MakeRandomInvertFunction("image", {.probability = 0.4, .random = random})), [](const Tensor& t) {
         Tensor inverted = t.Clone();
         for (int64_t k = 0; k < t.NumElements(); ++k) inverted.mutable_data<uint8_t>()[k] = 255 - t.data<uint8_t>()[k];
         return Result<Tensor>(inverted);
       }}};
  for (const Case& c : cases) {
    SCOPED_TRACE(c.fn->name());
    const std::vector<Tensor> sequential = Images(EnumeratedImages().Map(c.fn)),
                              parallel = Images(EnumeratedImages().Map(c.fn, {.num_parallel_calls = 3}));
    ASSERT_EQ(sequential.size(), static_cast<size_t>(kImages));
    int64_t applied = 0;
    for (int64_t i = 0; i < kImages; ++i) {
      const bool apply = ElementStream(6, i)(0) < 0.4;
      EXPECT_TRUE(sequential[i].Equals(apply ? Ok(c.op(originals[i])) : originals[i])) << i;
      EXPECT_TRUE(parallel[i].Equals(sequential[i])) << i;
      applied += apply;
    }
    EXPECT_GT(applied, 0);
    EXPECT_LT(applied, kImages);
  }
}

// random_affine draws torchvision's get_params in its order: angle (draw 0),
// translations rounded half to even (draws 1, 2), scale (3), shears (4, 5).
TEST(RandomAffineFunction, WarpsByTheDrawnParameters) {
  const std::vector<Tensor> originals = Images(EnumeratedImages(9, 8));
  const RandomAffineOptions options{.degrees_min = -20,
                                    .degrees_max = 35,
                                    .translate_x = 0.3,
                                    .translate_y = 0.2,
                                    .scale_min = 0.8,
                                    .scale_max = 1.3,
                                    .shear_x_min = -10,
                                    .shear_x_max = 10,
                                    .shear_y_min = 2,
                                    .shear_y_max = 5,
                                    .interpolation = WarpInterpolation::kBilinear,
                                    .fill = {1, 2, 3},
                                    .random = {.seed = 12, .index_component = "index"}};
  ElementFunctionPtr fn = Ok(MakeRandomAffineFunction("image", options));
  const std::vector<Tensor> sequential = Images(EnumeratedImages(9, 8).Map(fn)),
                            parallel = Images(EnumeratedImages(9, 8).Map(fn, {.num_parallel_calls = 2}));
  ASSERT_EQ(sequential.size(), static_cast<size_t>(kImages));
  for (int64_t i = 0; i < kImages; ++i) {
    const UniformStream u = ElementStream(12, i);
    const AffineParameters parameters{.angle = -20 + u(0) * 55,
                                      .translate_x = std::nearbyint(-2.4 + u(1) * 4.8),
                                      .translate_y = std::nearbyint(-1.8 + u(2) * 3.6),
                                      .scale = 0.8 + u(3) * 0.5,
                                      .shear_x = -10 + u(4) * 20,
                                      .shear_y = 2 + u(5) * 3};
    EXPECT_TRUE(sequential[i].Equals(
        Ok(AffineImage(originals[i], parameters, {.interpolation = WarpInterpolation::kBilinear, .fill = {1, 2, 3}}))))
        << i;
    EXPECT_TRUE(parallel[i].Equals(sequential[i])) << i;
  }
}

// A rotation by 90 degrees is counter-clockwise: out(y, x) = in(x, N-1-y).
TEST(RandomRotationFunction, RotatesCounterClockwise) {
  const Tensor square = testing::TestPicture(5, 5, 2, 3);
  const std::vector<Tensor> out =
      Images(Pipeline::FromTensors({{"image", square}})
                 .Enumerate()
                 .Map(Ok(MakeRandomRotationFunction("image", {.degrees_min = 90, .degrees_max = 90}))));
  ASSERT_EQ(out.size(), 1u);
  for (int64_t y = 0; y < 5; ++y) {
    for (int64_t x = 0; x < 5; ++x) {
      for (int64_t c = 0; c < 2; ++c) {
        EXPECT_EQ(out[0].data<uint8_t>()[(y * 5 + x) * 2 + c], square.data<uint8_t>()[(x * 5 + 4 - y) * 2 + c]);
      }
    }
  }
}

// The spec forms torchvision takes: one degrees value for [-d, d]; shear as
// one value, [min, max] for x, or four.
TEST(RandomAdjustFunctions, SpecFormsAndRoundTrips) {
  ElementFunctionPtr affine = Ok(FromText("random_affine { degrees: 15 shear: 4 translate: [0.1, 0.2] }"));
  EXPECT_EQ(affine->name(), "random_affine(degrees=[-15, 15], translate=[0.1, 0.2], shear=[-4, 4, 0, 0], nearest)");
  EXPECT_EQ(Ok(FromText("random_affine { degrees: [1, 2] shear: [3, 4, 5, 6] scale: [0.5, 2] "
                        "interpolation: \"bilinear\" fill: 7 center: [1, 2] seed: 3 }"))
                ->name(),
            "random_affine(degrees=[1, 2], scale=[0.5, 2], shear=[3, 4, 5, 6], bilinear, fill=[7], center=[1, 2], "
            "seed=3)");
  ExpectStatus(FromText("random_affine { degrees: 1 shear: [1, 2, 3] }").status(), StatusCode::kInvalidArgument,
               "random_affine: shear takes 1, 2 or 4 values, got 3");
  ExpectStatus(FromText("random_rotation { degrees: -3 }").status(), StatusCode::kInvalidArgument,
               "random_rotation: one degrees value must be >= 0, got -3");
  ElementFunctionPtr rotation = Ok(FromText("random_rotation { degrees: 30 interpolation: \"bilinear\" }"));
  EXPECT_EQ(rotation->name(), "random_rotation(degrees=[-30, 30], bilinear)");
  const RandomSource random{.seed = 1, .index_component = "n"};
  for (const ElementFunctionPtr& f :
       {affine, rotation,
        Ok(MakeRandomRotationFunction("", {.degrees_min = -5, .degrees_max = 5, .fill = {3}, .random = random})),
        Ok(MakeRandomPosterizeFunction("", {.bits = 2, .probability = 1, .random = random})),
        Ok(MakeRandomEqualizeFunction("x", {})),
        Ok(MakeRandomAutocontrastFunction("", {.probability = 0.1, .max_value = 1})),
        Ok(MakeRandomAdjustSharpnessFunction("", {.sharpness_factor = 0.5, .random = random})),
        Ok(MakeRandomInvertFunction("", {.max_value = 2}))}) {
    testing::ExpectSpecRoundTrip(*f);
  }
}

TEST(RandomAdjustFunctions, Errors) {
  ExpectStatus(MakeRandomPosterizeFunction("", {.bits = 9}).status(), StatusCode::kInvalidArgument,
               "random_posterize: bits must be in [0, 8], got 9");
  ExpectStatus(MakeRandomEqualizeFunction("", {.probability = 2}).status(), StatusCode::kInvalidArgument,
               "random_equalize: probability must be in [0, 1], got 2");
  ExpectStatus(MakeRandomAdjustSharpnessFunction("", {.sharpness_factor = -1}).status(), StatusCode::kInvalidArgument,
               "random_adjust_sharpness: sharpness_factor must be non-negative and "
               "finite, got -1");
  ExpectStatus(MakeRandomInvertFunction("", {.max_value = 0}).status(), StatusCode::kInvalidArgument,
               "random_invert: max_value must be positive and finite, got 0");
  ExpectStatus(MakeRandomAffineFunction("", {.degrees_min = 5, .degrees_max = 1}).status(),
               StatusCode::kInvalidArgument, "random_affine: degrees must be a finite range [min, max], got [5, 1]");
  ExpectStatus(MakeRandomAffineFunction("", {.translate_x = 1.5}).status(), StatusCode::kInvalidArgument,
               "random_affine: translate must be in [0, 1], got [1.5, 0]");
  ExpectStatus(MakeRandomAffineFunction("", {.scale_min = 0, .scale_max = 1}).status(), StatusCode::kInvalidArgument,
               "random_affine: scale must be positive, got 0");
  ExpectStatus(MakeRandomAffineFunction("", {.shear_y_min = -90, .shear_y_max = 0}).status(),
               StatusCode::kInvalidArgument, "random_affine: shear must be in (-90, 90) degrees, got [-90, 0]");
  ExpectStatus(MakeRandomRotationFunction("", {.center = std::array<double, 2>{NAN, 1.0}}).status(),
               StatusCode::kInvalidArgument, "random_rotation: center must be finite, got [nan, 1]");
  ElementFunctionPtr equalize = Ok(MakeRandomEqualizeFunction("image", {}));
  ExpectStatus(equalize->Bind({{"image", DType::kFloat32, Shape{4, 4, 3}}}).status(), StatusCode::kInvalidArgument,
               "random_equalize(image, p=0.5): component image is float32[4, 4, 3]; expected a uint8 image of 1 or 3 "
               "channels");
  // A fill that does not fit the image is that element's error.
  const Pipeline wrong_fill = EnumeratedImages().Map(
      Ok(MakeRandomRotationFunction("image", {.degrees_min = 1, .degrees_max = 2, .fill = {1, 2}})));
  ExpectStatus(Ok(wrong_fill.MakeIterator())->GetNext().status(), StatusCode::kInvalidArgument,
               "map: random_rotation(image, degrees=[1, 2], nearest, fill=[1, 2]): component image: affine: fill has 2 "
               "values for an image of 3 channels (element index 0)");
}

}  // namespace
}  // namespace sluice
