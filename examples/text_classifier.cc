// A text classifier over TFRecords of token ids: sentences of 3..16 tokens
// (ids 1..49; 0 is padding), positive when they hold more "good" tokens
// (1..10) than "bad" ones (11..20). Records are read with parse_example,
// padded to 16 tokens by padded_batch, embedded, mean-pooled over the real
// tokens (MaskedMeanPooling ignores the padding) and classified.
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <random>

#include "sluice/dataset/parse_example.h"
#include "sluice/dataset/pipeline.h"
#include "sluice/model/adam.h"
#include "sluice/model/dense.h"
#include "sluice/model/embedding.h"
#include "sluice/model/masked_mean_pooling.h"
#include "sluice/model/trainer.h"
#include "sluice/tfrecord/example.pb.h"
#include "sluice/tfrecord/record_writer.h"

using namespace sluice;

namespace {

constexpr int64_t kVocabulary = 50, kMaxTokens = 16;

Status WriteSentences(const std::string& path, int count, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> length(3, kMaxTokens), token(1, kVocabulary - 1);
  SLUICE_ASSIGN_OR_RETURN(auto writer, RecordWriter::Open(path, {.compression = Compression::kZlib}));
  for (int i = 0; i < count; ++i) {
    tensorflow::Example example;
    auto& features = *example.mutable_features()->mutable_feature();
    int good = 0, bad = 0;
    for (int t = 0, n = length(rng); t < n; ++t) {
      const int id = token(rng);
      good += id <= 10;
      bad += id > 10 && id <= 20;
      features["tokens"].mutable_int64_list()->add_value(id);
    }
    features["label"].mutable_int64_list()->add_value(good > bad ? 1 : 0);
    SLUICE_RETURN_IF_ERROR(writer->WriteRecord(example.SerializeAsString()));
  }
  return writer->Close();
}

Result<DatasetPtr> ReadSentences(const std::string& path, bool training) {
  const std::vector<FeatureConfig> features = {
      {.key = "tokens", .dtype = DType::kInt64, .layout = FeatureLayout::kVarLenPadded},
      {.key = "label", .dtype = DType::kInt64},
  };
  Pipeline records = Pipeline::TFRecord({.files = {path}, .compression = Compression::kZlib})
                         .Map(MakeParseExampleFunction("", features));
  if (training) records = records.Shuffle({.buffer_size = 4000, .seed = 1});
  return records.PaddedBatch({.batch_size = 32, .padded_shapes = {PartialShape{kMaxTokens}, PartialShape{}}}).Build();
}

}  // namespace

int main() {
  const auto dir = std::filesystem::temp_directory_path() / "sluice_text_classifier";
  std::filesystem::create_directories(dir);
  const std::string train_path = (dir / "train.tfrecord.zz").string(), test_path = (dir / "test.tfrecord.zz").string();
  if (!WriteSentences(train_path, 4000, 1).ok() || !WriteSentences(test_path, 1000, 2).ok()) return 1;

  ModelBuilder builder;
  ModelNode tokens = builder.Input({"tokens", DType::kInt64, Shape{kMaxTokens}});
  ModelNode vectors = builder.Apply(std::make_unique<Embedding>("embedding", EmbeddingOptions{kVocabulary, 16}), {tokens});
  ModelNode pooled = builder.Apply(std::make_unique<MaskedMeanPooling>("mean_pool"), {vectors, tokens});
  ModelNode hidden = builder.Apply(
      std::make_unique<Dense>("hidden", DenseOptions{.units = 16, .activation = Activation::kRelu}), {pooled});
  ModelNode logits = builder.Apply(std::make_unique<Dense>("logits", DenseOptions{.units = 1}), {hidden});
  auto model = std::move(builder).Build({logits}, /*seed=*/3, {"logits"});
  if (!model.ok()) return std::fprintf(stderr, "%s\n", model.status().ToString().c_str()), 1;

  BinaryCrossentropy loss(/*from_logits=*/true);
  Adam adam({.learning_rate = std::make_shared<ConstantLearningRate>(1e-2)});
  Trainer trainer(**model, loss, adam,
                  {.metrics = {[] { return std::make_unique<BinaryAccuracy>(BinaryOptions{.from_logits = true}, "accuracy"); },
                               [] { return std::make_unique<Auc>(AucOptions{.from_logits = true}); }}});
  auto train = ReadSentences(train_path, true);
  auto test = ReadSentences(test_path, false);
  if (!train.ok() || !test.ok()) return std::fprintf(stderr, "%s\n", (train.ok() ? test : train).status().ToString().c_str()), 1;
  auto history = trainer.Fit(*train, {.epochs = 10, .validation = *test, .progress = &std::cout});
  std::filesystem::remove_all(dir);
  if (!history.ok()) return std::fprintf(stderr, "%s\n", history.status().ToString().c_str()), 1;
  const double accuracy = history->back().values.at("val_accuracy");
  std::printf("test accuracy %.4f\n", accuracy);
  return accuracy >= 0.85 ? 0 : 1;
}
