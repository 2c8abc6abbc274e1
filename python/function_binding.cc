// The built-in element functions and predicates (dataset/builtin_functions.h,
// dataset/parse_example.h, dataset/parse_sequence_example.h,
// dataset/image_functions.h, dataset/text_functions.h), as
// `_sluice.ElementFunction` and `_sluice.Predicate` objects that sluice/fn.py
// makes. They run in C++,
// without the GIL.
#include <pybind11/stl.h>

#include <array>

#include "sluice/dataset/auto_augment_functions.h"
#include "sluice/dataset/builtin_functions.h"
#include "sluice/dataset/expression_functions.h"
#include "sluice/dataset/image_functions.h"
#include "sluice/dataset/parse_example.h"
#include "sluice/dataset/parse_sequence_example.h"
#include "sluice/dataset/pipeline_spec.pb.h"
#include "sluice/dataset/pipeline_spec_io.h"
#include "sluice/dataset/random_adjust_functions.h"
#include "sluice/dataset/text_functions.h"
#include "sluice/python/dataset_binding.h"
#include "sluice/python/errors.h"
#include "sluice/python/tensor_conversion.h"

namespace sluice::python {
namespace py = pybind11;

namespace {

PyElementFunction Wrap(Result<ElementFunctionPtr> fn) { return PyElementFunction{ValueOrThrow(std::move(fn))}; }

Result<Comparison> ComparisonFrom(const std::string& name) {
  if (name == "==") return Comparison::kEqual;
  if (name == "!=") return Comparison::kNotEqual;
  if (name == "<") return Comparison::kLess;
  if (name == "<=") return Comparison::kLessEqual;
  if (name == ">") return Comparison::kGreater;
  if (name == ">=") return Comparison::kGreaterEqual;
  return InvalidArgumentError("compare: unknown comparison '", name, "' (expected ==, !=, <, <=, > or >=)");
}

Result<FeatureLayout> LayoutFrom(const std::string& name) {
  if (name == "fixed_len") return FeatureLayout::kFixedLen;
  if (name == "var_len") return FeatureLayout::kVarLen;
  if (name == "var_len_padded") return FeatureLayout::kVarLenPadded;
  return InvalidArgumentError("parse_example: unknown feature layout '", name,
                              "' (expected fixed_len, var_len or var_len_padded)");
}

// features: [(key, dtype, layout, shape, default_value or None), ...]; `fn`
// starts errors.
std::vector<FeatureConfig> FeaturesFrom(const py::list& features, std::string_view fn) {
  std::vector<FeatureConfig> configs;
  for (py::handle item : features) {
    py::tuple entry = py::reinterpret_borrow<py::object>(item).cast<py::tuple>();
    FeatureConfig config;
    config.key = entry[0].cast<std::string>();
    const std::string what = StrCat(fn, ": feature '", config.key, "'");
    config.dtype = DTypeFromPython(entry[1], what + ": dtype");
    config.layout = ValueOrThrow(LayoutFrom(entry[2].cast<std::string>()));
    std::vector<int64_t> dims = entry[3].cast<std::vector<int64_t>>();
    Result<Shape> shape = Shape::FromDims(dims);
    if (!shape.ok()) throw StatusError(shape.status().WithContext(what + ": shape"));
    config.shape = *shape;
    if (!entry[4].is_none()) {
      Tensor value = NumpyToTensor(entry[4], what + ": default_value");
      if (value.dtype() != config.dtype && config.dtype != DType::kString && value.dtype() != DType::kString) {
        // Python numbers come as int64/float64: give them the feature's dtype.
        value = NumpyToTensor(py::module_::import("numpy").attr("asarray")(entry[4], NumpyDTypeOf(config.dtype)),
                              what + ": default_value");
      }
      config.default_value = std::move(value);
    }
    configs.push_back(std::move(config));
  }
  return configs;
}

// sequence features: [(key, dtype, "fixed_len" or "var_len", step shape, required), ...]
std::vector<SequenceFeatureConfig> SequenceFeaturesFrom(const py::list& features) {
  std::vector<SequenceFeatureConfig> configs;
  for (py::handle item : features) {
    py::tuple entry = py::reinterpret_borrow<py::object>(item).cast<py::tuple>();
    SequenceFeatureConfig config{.key = entry[0].cast<std::string>(), .required = entry[4].cast<bool>()};
    const std::string what = StrCat("parse_sequence_example: sequence feature '", config.key, "'");
    config.dtype = DTypeFromPython(entry[1], what + ": dtype");
    const std::string layout = entry[2].cast<std::string>();
    if (layout != "fixed_len" && layout != "var_len") {
      throw StatusError(InvalidArgumentError(what, ": unknown layout '", layout, "' (expected fixed_len or var_len)"));
    }
    config.layout = layout == "fixed_len" ? StepLayout::kFixedLen : StepLayout::kVarLen;
    Result<Shape> shape = Shape::FromDims(entry[3].cast<std::vector<int64_t>>());
    if (!shape.ok()) throw StatusError(shape.status().WithContext(what + ": shape"));
    config.shape = *shape;
    configs.push_back(std::move(config));
  }
  return configs;
}

}  // namespace

void RegisterFunctions(py::module_& m) {
  py::class_<PyElementFunction>(m, "ElementFunction", "A built-in element function (use sluice.fn).")
      .def_property_readonly("name", [](const PyElementFunction& f) { return f.function->name(); })
      .def("output_spec", [](const PyElementFunction& f, py::handle input_spec) {
        BoundElementFunction bound = ValueOrThrow(f.function->Bind(ElementSpecFromPython(input_spec, "output_spec")));
        return ElementSpecToPython(bound.output_spec);
      });
  py::class_<PyPredicate>(m, "Predicate", "A built-in predicate (use sluice.fn).")
      .def_property_readonly("name", [](const PyPredicate& p) { return p.predicate->name(); });
  py::class_<PyDatasetFunction>(m, "DatasetFunction", "A function from an element to a dataset (interleave's).")
      .def_property_readonly("name", [](const PyDatasetFunction& f) { return f.function->name(); });

  m.def("fn_cast", [](std::string component, py::object dtype) {
    return Wrap(MakeCastFunction(std::move(component), DTypeFromPython(dtype, "cast: dtype")));
  });
  m.def("fn_scale_shift", [](std::string component, double scale, double shift) {
    return Wrap(MakeScaleShiftFunction(std::move(component), scale, shift));
  });
  m.def("fn_reshape", [](std::string component, std::vector<int64_t> shape) {
    return Wrap(MakeReshapeFunction(std::move(component), std::move(shape)));
  });
  m.def("fn_one_hot", [](std::string component, int64_t depth, py::object dtype) {
    return Wrap(MakeOneHotFunction(std::move(component), depth, DTypeFromPython(dtype, "one_hot: dtype")));
  });
  m.def("fn_decode_raw", [](std::string component, py::object dtype, bool little_endian, int64_t fixed_length) {
    return Wrap(MakeDecodeRawFunction(std::move(component),
                                      {.dtype = DTypeFromPython(dtype, "decode_raw: dtype"),
                                       .little_endian = little_endian,
                                       .fixed_length = fixed_length}));
  });
  m.def("fn_select", [](std::vector<std::string> components) { return Wrap(MakeSelectFunction(std::move(components))); });
  m.def("fn_rename", [](std::vector<std::string> names) { return Wrap(MakeRenameFunction(std::move(names))); });
  m.def("fn_parse_example", [](std::string component, const py::list& features) {
    return Wrap(MakeParseExampleFunction(std::move(component), FeaturesFrom(features, "parse_example")));
  });
  m.def("fn_parse_sequence_example", [](std::string component, const py::list& context, const py::list& sequence) {
    return Wrap(MakeParseSequenceExampleFunction(std::move(component), FeaturesFrom(context, "parse_sequence_example"),
                                                 SequenceFeaturesFrom(sequence)));
  });
  m.def("fn_decode_jpeg", [](std::string component, int channels, int ratio, const std::string& dct_method, int64_t max_pixels) {
    return Wrap(MakeDecodeJpegFunction(std::move(component), {.channels = channels, .ratio = ratio,
                                                               .dct_method = ValueOrThrow(ParseJpegDctMethod(dct_method)),
                                                               .max_pixels = max_pixels}));
  });
  m.def("fn_decode_png", [](std::string component, int channels, int64_t max_pixels) {
    return Wrap(MakeDecodePngFunction(std::move(component), {.channels = channels, .max_pixels = max_pixels}));
  });
  m.def("fn_decode_image", [](std::string component, int channels, int64_t max_pixels) {
    return Wrap(MakeDecodeImageFunction(std::move(component), {.channels = channels, .max_pixels = max_pixels}));
  });
  m.def("fn_resize", [](std::string component, int64_t height, int64_t width, const std::string& method, bool antialias) {
    return Wrap(MakeResizeFunction(std::move(component), {.height = height, .width = width,
                                                          .method = ValueOrThrow(ParseResizeMethod(method)),
                                                          .antialias = antialias}));
  });
  m.def("fn_center_crop", [](std::string component, int64_t height, int64_t width) {
    return Wrap(MakeCenterCropFunction(std::move(component), height, width));
  });
  m.def("fn_crop_mirror_normalize", [](std::string component, int64_t crop_height, int64_t crop_width, std::vector<float> mean,
                                       std::vector<float> std, bool mirror, const std::string& layout, py::object dtype) {
    return Wrap(MakeCropMirrorNormalizeFunction(
        std::move(component), {.crop_height = crop_height, .crop_width = crop_width, .mean = std::move(mean),
                               .std = std::move(std), .mirror = mirror, .layout = ValueOrThrow(ParseImageLayout(layout)),
                               .dtype = DTypeFromPython(dtype, "crop_mirror_normalize: dtype")}));
  });
  m.def("fn_random_flip", [](std::string component, bool up_down, double probability, std::optional<uint64_t> seed, std::string index) {
    return Wrap(MakeRandomFlipFunction(
        std::move(component), {.direction = up_down ? FlipDirection::kUpDown : FlipDirection::kLeftRight,
                               .probability = probability, .random = {.seed = seed, .index_component = std::move(index)}}));
  });
  m.def("fn_decode_jpeg_random_crop", [](std::string component, int64_t height, int64_t width, std::pair<double, double> scale,
                                         std::pair<double, double> ratio, int attempts, int channels,
                                         const std::string& dct_method, std::optional<uint64_t> seed, std::string index, int64_t max_pixels,
                                         bool scaled_idct, const std::string& method) {
    return Wrap(MakeDecodeJpegRandomCropFunction(
        std::move(component),
        {.height = height, .width = width,
         .crop = {.scale_min = scale.first, .scale_max = scale.second, .ratio_min = ratio.first, .ratio_max = ratio.second,
                  .attempts = attempts},
         .method = ValueOrThrow(ParseResizeMethod(method)),
         .scaled_idct = scaled_idct,
         .decode = {.channels = channels, .dct_method = ValueOrThrow(ParseJpegDctMethod(dct_method)), .max_pixels = max_pixels},
         .random = {.seed = seed, .index_component = std::move(index)}}));
  });
  m.def("fn_color_jitter", [](std::string component, double brightness, double contrast, double saturation, double hue,
                              float max_value, double probability, std::optional<uint64_t> seed, std::string index) {
    return Wrap(MakeColorJitterFunction(
        std::move(component), {.brightness = brightness, .contrast = contrast, .saturation = saturation, .hue = hue,
                               .max_value = max_value, .probability = probability,
                               .random = {.seed = seed, .index_component = std::move(index)}}));
  });
  m.def("fn_random_grayscale", [](std::string component, double probability, float max_value,
                                  std::optional<uint64_t> seed, std::string index) {
    return Wrap(MakeRandomGrayscaleFunction(
        std::move(component), {.probability = probability, .max_value = max_value,
                               .random = {.seed = seed, .index_component = std::move(index)}}));
  });
  m.def("fn_random_crop", [](std::string component, int64_t height, int64_t width, std::vector<int64_t> padding,
                             bool pad_if_needed, const std::string& padding_mode, double fill, std::optional<uint64_t> seed,
                             std::string index) {
    // padding: [left, top, right, bottom], as torchvision's four values.
    return Wrap(MakeRandomCropFunction(
        std::move(component),
        {.height = height, .width = width,
         .padding = {.top = padding.at(1), .bottom = padding.at(3), .left = padding.at(0), .right = padding.at(2)},
         .pad_if_needed = pad_if_needed, .padding_mode = ValueOrThrow(ParsePaddingMode(padding_mode)), .fill = fill,
         .random = {.seed = seed, .index_component = std::move(index)}}));
  });
  m.def("fn_gaussian_blur", [](std::string component, int64_t kernel_height, int64_t kernel_width,
                               std::pair<double, double> sigma, double probability, std::optional<uint64_t> seed,
                               std::string index) {
    return Wrap(MakeGaussianBlurFunction(
        std::move(component), {.kernel_height = kernel_height, .kernel_width = kernel_width, .sigma_min = sigma.first,
                               .sigma_max = sigma.second, .probability = probability,
                               .random = {.seed = seed, .index_component = std::move(index)}}));
  });
  m.def("fn_random_solarize", [](std::string component, double threshold, double probability, float max_value,
                                 std::optional<uint64_t> seed, std::string index) {
    return Wrap(MakeRandomSolarizeFunction(
        std::move(component), {.threshold = threshold, .probability = probability, .max_value = max_value,
                               .random = {.seed = seed, .index_component = std::move(index)}}));
  });
  m.def("fn_random_erasing", [](std::string component, double probability, std::pair<double, double> scale,
                                 std::pair<double, double> ratio, std::vector<float> value, bool random_value,
                                 const std::string& layout, std::optional<uint64_t> seed, std::string index) {
    return Wrap(MakeRandomErasingFunction(
        std::move(component), {.probability = probability, .scale_min = scale.first, .scale_max = scale.second,
                               .ratio_min = ratio.first, .ratio_max = ratio.second, .value = std::move(value),
                               .random_value = random_value, .layout = ValueOrThrow(ParseImageLayout(layout)),
                               .random = {.seed = seed, .index_component = std::move(index)}}));
  });
  m.def("fn_auto_augment", [](std::string component, const std::string& policy, const std::string& interpolation,
                              std::vector<float> fill, std::optional<uint64_t> seed, std::string index) {
    return Wrap(MakeAutoAugmentFunction(
        std::move(component), {.policy = ValueOrThrow(ParseAutoAugmentPolicy(policy)),
                               .interpolation = ValueOrThrow(ParseWarpInterpolation(interpolation)),
                               .fill = std::move(fill), .random = {.seed = seed, .index_component = std::move(index)}}));
  });
  m.def("fn_augmix", [](std::string component, int64_t severity, int64_t mixture_width, int64_t chain_depth,
                        double alpha, bool all_ops, const std::string& interpolation, std::vector<float> fill,
                        std::optional<uint64_t> seed, std::string index) {
    return Wrap(MakeAugMixFunction(
        std::move(component), {.severity = severity, .mixture_width = mixture_width, .chain_depth = chain_depth,
                               .alpha = alpha, .all_ops = all_ops,
                               .interpolation = ValueOrThrow(ParseWarpInterpolation(interpolation)),
                               .fill = std::move(fill), .random = {.seed = seed, .index_component = std::move(index)}}));
  });
  m.def("fn_rand_augment", [](std::string component, int64_t num_ops, int64_t magnitude, int64_t num_magnitude_bins,
                              const std::string& interpolation, std::vector<float> fill, std::optional<uint64_t> seed,
                              std::string index) {
    return Wrap(MakeRandAugmentFunction(
        std::move(component), {.num_ops = num_ops, .magnitude = magnitude, .num_magnitude_bins = num_magnitude_bins,
                               .interpolation = ValueOrThrow(ParseWarpInterpolation(interpolation)),
                               .fill = std::move(fill), .random = {.seed = seed, .index_component = std::move(index)}}));
  });
  m.def("fn_trivial_augment_wide", [](std::string component, int64_t num_magnitude_bins,
                                      const std::string& interpolation, std::vector<float> fill,
                                      std::optional<uint64_t> seed, std::string index) {
    return Wrap(MakeTrivialAugmentWideFunction(
        std::move(component), {.num_magnitude_bins = num_magnitude_bins,
                               .interpolation = ValueOrThrow(ParseWarpInterpolation(interpolation)),
                               .fill = std::move(fill), .random = {.seed = seed, .index_component = std::move(index)}}));
  });
  m.def("fn_random_posterize", [](std::string component, int bits, double probability, std::optional<uint64_t> seed,
                                  std::string index) {
    return Wrap(MakeRandomPosterizeFunction(
        std::move(component),
        {.bits = bits, .probability = probability, .random = {.seed = seed, .index_component = std::move(index)}}));
  });
  m.def("fn_random_equalize",
        [](std::string component, double probability, std::optional<uint64_t> seed, std::string index) {
          return Wrap(MakeRandomEqualizeFunction(
              std::move(component),
              {.probability = probability, .random = {.seed = seed, .index_component = std::move(index)}}));
        });
  m.def("fn_random_autocontrast", [](std::string component, double probability, float max_value,
                                     std::optional<uint64_t> seed, std::string index) {
    return Wrap(MakeRandomAutocontrastFunction(std::move(component),
                                               {.probability = probability,
                                                .max_value = max_value,
                                                .random = {.seed = seed, .index_component = std::move(index)}}));
  });
  m.def("fn_random_adjust_sharpness", [](std::string component, double sharpness_factor, double probability,
                                         float max_value, std::optional<uint64_t> seed, std::string index) {
    return Wrap(MakeRandomAdjustSharpnessFunction(std::move(component),
                                                  {.sharpness_factor = sharpness_factor,
                                                   .probability = probability,
                                                   .max_value = max_value,
                                                   .random = {.seed = seed, .index_component = std::move(index)}}));
  });
  m.def("fn_random_invert", [](std::string component, double probability, float max_value, std::optional<uint64_t> seed,
                               std::string index) {
    return Wrap(MakeRandomInvertFunction(std::move(component),
                                         {.probability = probability,
                                          .max_value = max_value,
                                          .random = {.seed = seed, .index_component = std::move(index)}}));
  });
  m.def("fn_random_affine",
        [](std::string component, std::pair<double, double> degrees, std::pair<double, double> translate,
           std::pair<double, double> scale, std::vector<double> shear, const std::string& interpolation,
           std::vector<float> fill, std::optional<std::array<double, 2>> center, std::optional<uint64_t> seed,
           std::string index) {
          if (shear.size() != 4) throw py::value_error("random_affine: shear must hold 4 values");
          return Wrap(MakeRandomAffineFunction(std::move(component),
                                               {.degrees_min = degrees.first,
                                                .degrees_max = degrees.second,
                                                .translate_x = translate.first,
                                                .translate_y = translate.second,
                                                .scale_min = scale.first,
                                                .scale_max = scale.second,
                                                .shear_x_min = shear[0],
                                                .shear_x_max = shear[1],
                                                .shear_y_min = shear[2],
                                                .shear_y_max = shear[3],
                                                .interpolation = ValueOrThrow(ParseWarpInterpolation(interpolation)),
                                                .fill = std::move(fill),
                                                .center = center,
                                                .random = {.seed = seed, .index_component = std::move(index)}}));
        });
  m.def("fn_random_rotation",
        [](std::string component, std::pair<double, double> degrees, const std::string& interpolation,
           std::vector<float> fill, std::optional<std::array<double, 2>> center, std::optional<uint64_t> seed,
           std::string index) {
          return Wrap(MakeRandomRotationFunction(std::move(component),
                                                 {.degrees_min = degrees.first,
                                                  .degrees_max = degrees.second,
                                                  .interpolation = ValueOrThrow(ParseWarpInterpolation(interpolation)),
                                                  .fill = std::move(fill),
                                                  .center = center,
                                                  .random = {.seed = seed, .index_component = std::move(index)}}));
        });
  m.def("fn_mixup", [](std::string images, std::string labels, int64_t num_classes, double mixup_alpha,
                       double cutmix_alpha, double switch_probability, double probability, double label_smoothing,
                       const std::string& layout, std::optional<uint64_t> seed) {
    return Wrap(MakeMixupFunction(
        std::move(images), {.label_component = std::move(labels), .num_classes = num_classes,
                            .mixup_alpha = mixup_alpha, .cutmix_alpha = cutmix_alpha,
                            .switch_probability = switch_probability, .probability = probability,
                            .label_smoothing = label_smoothing, .layout = ValueOrThrow(ParseImageLayout(layout)),
                            .seed = seed}));
  });
  m.def("fn_to_hash_bucket_fast", [](std::string component, int64_t num_buckets) {
    return Wrap(MakeToHashBucketFastFunction(std::move(component), num_buckets));
  });
  m.def("fn_lookup", [](std::string component, std::string vocabulary_file, int64_t num_oov_buckets, int64_t default_value,
                        int64_t max_vocabulary_bytes) {
    return Wrap(MakeLookupFunction(std::move(component), {.vocabulary_file = std::move(vocabulary_file),
                                                          .num_oov_buckets = num_oov_buckets,
                                                          .default_value = default_value,
                                                          .max_vocabulary_bytes = max_vocabulary_bytes}));
  });
  m.def("fn_lower", [](std::string component) { return Wrap(MakeLowerFunction(std::move(component))); });
  m.def("fn_normalize", [](std::string component, const std::string& form) {
    return Wrap(MakeNormalizeFunction(std::move(component), ValueOrThrow(ParseNormalizationForm(form))));
  });
  m.def("fn_split_whitespace", [](std::string component) { return Wrap(MakeSplitWhitespaceFunction(std::move(component))); });
  m.def("fn_regex_split", [](std::string component, std::string pattern, std::string keep_delim_pattern) {
    return Wrap(MakeRegexSplitFunction(std::move(component), std::move(pattern), std::move(keep_delim_pattern)));
  });
  m.def("fn_regex_replace", [](std::string component, std::string pattern, std::string rewrite, bool replace_global) {
    return Wrap(MakeRegexReplaceFunction(std::move(component), std::move(pattern), std::move(rewrite), replace_global));
  });
  m.def("fn_wordpiece", [](std::string component, std::string vocabulary_file, std::string suffix_indicator,
                           int64_t max_bytes_per_word, int64_t max_chars_per_token, std::string unknown_token,
                           bool tokens, bool with_offsets, int64_t max_vocabulary_bytes) {
    return Wrap(MakeWordpieceFunction(
        std::move(component),
        {.vocabulary_file = std::move(vocabulary_file), .max_vocabulary_bytes = max_vocabulary_bytes,
         .tokenizer = {.suffix_indicator = std::move(suffix_indicator), .max_bytes_per_word = max_bytes_per_word,
                       .max_chars_per_token = max_chars_per_token, .unknown_token = std::move(unknown_token)},
         .tokens = tokens, .with_offsets = with_offsets}));
  });
  m.def("fn_pad_or_truncate", [](std::string component, int64_t length, double pad_value, bool per_row) {
    return Wrap(MakePadOrTruncateFunction(std::move(component), length, pad_value, per_row));
  });
  m.def("fn_compare", [](std::string component, const std::string& comparison, double value) {
    return PyPredicate{ValueOrThrow(MakeComparePredicate(std::move(component), ValueOrThrow(ComparisonFrom(comparison)), value))};
  });
  m.def("fn_expression", [](const std::vector<std::pair<std::string, std::string>>& outputs, bool keep_inputs) {
    return Wrap(MakeExpressionFunction(outputs, {.keep_inputs = keep_inputs}));
  });
  m.def("fn_expression_predicate", [](const std::string& text) {
    return PyPredicate{ValueOrThrow(MakeExpressionPredicate(text))};
  });
  m.def("fn_spec_dataset_function", [](const py::bytes& function_spec, py::handle input_spec) {
    spec::Pipeline pipeline = ValueOrThrow(ParseSpecBinary(std::string(function_spec)));
    return PyDatasetFunction{ValueOrThrow(MakeSpecDatasetFunction(std::move(pipeline), ElementSpecFromPython(input_spec, "interleave")))};
  });
}

}  // namespace sluice::python
