// The models and preprocessing chains that the exported-preprocessing tests
// (tests/model/export_preprocessing_test.cc, tests/tools/predict_command_test.cc)
// export: a text classifier over WordPiece ids and an image classifier over
// decoded, cropped and normalised JPEG pixels, with the raw inputs they take
// and the training-time pipeline (from_slices -> the same map chain ->
// batch -> the model) that their exports must reproduce.
#pragma once

#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "sluice/tests/ops/image_test_util.h"
#include "sluice/dataset/builtin_functions.h"
#include "sluice/dataset/image_functions.h"
#include "sluice/dataset/pipeline.h"
#include "sluice/dataset/text_functions.h"
#include "sluice/model/dense.h"
#include "sluice/model/embedding.h"
#include "sluice/model/masked_mean_pooling.h"
#include "sluice/model/preprocessing.h"

namespace sluice::testing {

inline constexpr int64_t kTextLength = 8;
inline constexpr int64_t kImageSide = 24;

// A WordPiece vocabulary; line 0, "[PAD]", is id 0, the padding
// MaskedMeanPooling skips.
inline const std::vector<std::string>& VocabularyTokens() {
  static const auto* tokens = new std::vector<std::string>{
      "[PAD]", "[UNK]", "the", "good", "bad", "film", "play", "##s", "##ing", "##ed", "great", "dull", "plot"};
  return *tokens;
}

// Writes the vocabulary as dir/vocab.txt and returns its path.
inline std::string WriteVocabulary(const TempDir& dir) {
  const std::string path = dir.File("vocab.txt");
  std::ofstream out(path);
  for (const std::string& token : VocabularyTokens()) out << token << "\n";
  return path;
}

// Raw text with upper case, suffixes that WordPiece splits off, unknown
// words and more words than kTextLength.
inline std::vector<std::string> Sentences() {
  return {"The GOOD film", "bad plots", "Great playing the the the good good dull plot films",
          "zebra", "", "DULL plays, played"};
}

inline std::unique_ptr<Model> TextClassifier() {
  ModelBuilder builder;
  ModelNode ids = builder.Input({"text", DType::kInt64, Shape{kTextLength}});
  const int64_t vocabulary = static_cast<int64_t>(VocabularyTokens().size());
  ModelNode vectors = builder.Apply(std::make_unique<Embedding>("embedding", EmbeddingOptions{vocabulary + 1, 6}), {ids});
  ModelNode pooled = builder.Apply(std::make_unique<MaskedMeanPooling>("pool"), {vectors, ids});
  ModelNode logits = builder.Apply(std::make_unique<Dense>("logits", DenseOptions{.units = 2}), {pooled});
  return *std::move(builder).Build({logits}, /*seed=*/5, {"logits"});
}

// lower -> split_whitespace -> wordpiece -> select -> pad_or_truncate, from
// a scalar string "text" to int64 [kTextLength] "text" (and its mask): the
// select drops the pieces' per-word row lengths, so the sentence's pieces
// are padded as one row.
inline Preprocessing TextPreprocessing(const std::string& vocabulary_file) {
  return {.raw_inputs = {{"text", DType::kString, Shape{}}},
          .functions = {*MakeLowerFunction("text"), *MakeSplitWhitespaceFunction("text"),
                        *MakeWordpieceFunction("text", {.vocabulary_file = vocabulary_file}),
                        *MakeSelectFunction({"text"}), *MakePadOrTruncateFunction("text", kTextLength)}};
}

inline std::unique_ptr<Model> ImageClassifier() {
  ModelBuilder builder;
  ModelNode pixels = builder.Input({"image", DType::kFloat32, Shape{3 * kImageSide * kImageSide}});
  ModelNode logits = builder.Apply(std::make_unique<Dense>("logits", DenseOptions{.units = 3}), {pixels});
  return *std::move(builder).Build({logits}, /*seed=*/7, {"logits"});
}

// decode_jpeg -> center_crop -> crop_mirror_normalize (CHW) -> reshape,
// from a scalar string "image" of JPEG bytes to float32 [3 * 24 * 24].
inline Preprocessing ImagePreprocessing() {
  return {.raw_inputs = {{"image", DType::kString, Shape{}}},
          .functions = {*MakeDecodeJpegFunction("image", {.channels = 3}),
                        *MakeCenterCropFunction("image", kImageSide + 4, kImageSide + 4),
                        *MakeCropMirrorNormalizeFunction("image", {.crop_height = kImageSide,
                                                                    .crop_width = kImageSide,
                                                                    .mean = {120, 115, 100},
                                                                    .std = {60, 62, 58}}),
                        *MakeReshapeFunction("image", {3 * kImageSide * kImageSide})}};
}

// JPEGs of several sizes (none smaller than the crop), made by cjpeg.
inline std::vector<std::string> TestJpegs(const TempDir& dir) {
  std::vector<std::string> jpegs;
  const int64_t sizes[][2] = {{32, 40}, {48, 30}, {28, 28}, {64, 50}};
  uint32_t seed = 1;
  for (const auto& [height, width] : sizes) {
    jpegs.push_back(CjpegEncode(dir, TestPicture(height, width, 3, seed++), "-quality 85"));
  }
  return jpegs;
}

// What training computes for `raw` (one string per element of the raw
// input): from_slices -> the map chain -> select the model's inputs (as
// training keeps features and label) -> batch -> the model.
inline std::vector<Tensor> TrainingPipelineOutputs(Model& model, const Preprocessing& preprocessing,
                                                   const std::vector<std::string>& raw) {
  Pipeline pipeline = Pipeline::FromSlices({{preprocessing.raw_inputs[0].name, Tensor::FromVector(raw)}});
  for (const ElementFunctionPtr& fn : preprocessing.functions) pipeline = pipeline.Map(fn);
  std::vector<std::string> model_inputs;
  for (const InputSignature& input : model.inputs()) model_inputs.push_back(input.name);
  pipeline = pipeline.Map(MakeSelectFunction(model_inputs)).Batch({.batch_size = static_cast<int64_t>(raw.size())});
  auto elements = pipeline.Elements();
  std::vector<Element> batches;
  for (const Element& batch : elements) batches.push_back(batch);
  EXPECT_TRUE(elements.status().ok()) << elements.status();
  EXPECT_EQ(batches.size(), 1u);
  if (batches.size() != 1) return {};
  const std::vector<Tensor> inputs(batches[0].components.begin(), batches[0].components.end());
  Result<std::vector<Tensor>> outputs = model.Call(inputs, /*training=*/false);
  EXPECT_TRUE(outputs.ok()) << outputs.status();
  return outputs.ok() ? *outputs : std::vector<Tensor>{};
}

}  // namespace sluice::testing
