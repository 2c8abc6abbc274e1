// A text classifier trained from raw text, exported with its preprocessing.
//
// Reviews are generated as UTF-8 text (mixed case, plural suffixes, unknown
// words), positive when they hold more praising words than scathing ones,
// and written as TFRecords of tf.train.Example with a `text` bytes feature
// and a `label`; the WordPiece vocabulary is written beside them. Training
// reads
//   tfrecord -> parse_example(text) -> lower -> split_whitespace -> wordpiece
//            -> select(text) -> pad_or_truncate(24)
//   zipped with tfrecord -> parse_example(label), then shuffle -> batch
// into Embedding + MaskedMeanPooling (id 0, "[PAD]", is the padding) +
// Dense. (The select drops wordpiece's per-word row lengths, so a review's
// pieces are padded as one row; the label comes beside, so that the text
// branch is exactly the chain that serving runs.) The text functions (lower
// .. pad_or_truncate) are then exported with the model, so the bundle takes
// raw text: the vocabulary is copied into it, and it gives the same logits
// on a review as the training pipeline's functions plus the model.
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <random>

#include "sluice/dataset/builtin_functions.h"
#include "sluice/dataset/parse_example.h"
#include "sluice/dataset/pipeline.h"
#include "sluice/dataset/text_functions.h"
#include "sluice/model/adam.h"
#include "sluice/model/dense.h"
#include "sluice/model/embedding.h"
#include "sluice/model/export.h"
#include "sluice/model/masked_mean_pooling.h"
#include "sluice/model/trainer.h"
#include "sluice/tfrecord/example.pb.h"
#include "sluice/tfrecord/record_writer.h"

using namespace sluice;

namespace {

constexpr int64_t kMaxTokens = 24;
constexpr double kRequiredAccuracy = 0.95;

const std::vector<std::string> kPraise = {"great", "wonderful", "superb", "moving", "brilliant", "charming"};
const std::vector<std::string> kScorn = {"awful", "boring", "terrible", "dull", "clumsy", "tedious"};
const std::vector<std::string> kNeutral = {"the", "film", "plot", "actor", "story", "was", "and", "a",
                                           "it", "scene", "ending", "music", "director", "with"};

// The WordPiece vocabulary: [PAD] (id 0), [UNK], every word, and the
// plural suffix.
Status WriteVocabulary(const std::string& path) {
  std::ofstream out(path);
  out << "[PAD]\n[UNK]\n##s\n";
  for (const auto* words : {&kPraise, &kScorn, &kNeutral}) {
    for (const std::string& word : *words) out << word << "\n";
  }
  out.flush();
  return out ? OkStatus() : InternalError("cannot write ", path);
}

int64_t VocabularySize() { return 3 + static_cast<int64_t>(kPraise.size() + kScorn.size() + kNeutral.size()); }

// A review of 4..20 words, some capitalised, some plural, some unknown.
std::string Review(std::mt19937_64& rng, int64_t& label) {
  std::uniform_int_distribution<int> length(4, 20), kind(0, 9), pick(0, 1000);
  int praise = 0, scorn = 0;
  std::string text;
  auto add = [&](std::string word) {
    if (pick(rng) % 5 == 0) word[0] = static_cast<char>(std::toupper(word[0]));
    if (pick(rng) % 7 == 0) word += "s";
    text += (text.empty() ? "" : " ") + word;
  };
  for (int i = 0, n = length(rng); i < n; ++i) {
    const int k = kind(rng);
    if (k == 0) {
      add(kPraise[pick(rng) % kPraise.size()]), ++praise;
    } else if (k == 1) {
      add(kScorn[pick(rng) % kScorn.size()]), ++scorn;
    } else if (k == 2) {
      add("xq" + std::to_string(pick(rng)));  // out of the vocabulary
    } else {
      add(kNeutral[pick(rng) % kNeutral.size()]);
    }
  }
  if (praise == scorn) {
    const bool praising = pick(rng) % 2 == 0;
    add(praising ? kPraise[0] : kScorn[0]);
    ++(praising ? praise : scorn);
  }
  label = praise > scorn ? 1 : 0;
  return text;
}

Status WriteReviews(const std::string& path, int count, uint64_t seed) {
  std::mt19937_64 rng(seed);
  SLUICE_ASSIGN_OR_RETURN(auto writer, RecordWriter::Open(path, {}));
  for (int i = 0; i < count; ++i) {
    int64_t label = 0;
    tensorflow::Example example;
    auto& features = *example.mutable_features()->mutable_feature();
    features["text"].mutable_bytes_list()->add_value(Review(rng, label));
    features["label"].mutable_int64_list()->add_value(label);
    SLUICE_RETURN_IF_ERROR(writer->WriteRecord(example.SerializeAsString()));
  }
  return writer->Close();
}

// Raw text to kMaxTokens WordPiece ids: the per-element part of training
// that the export carries.
Result<std::vector<ElementFunctionPtr>> TextToIds(const std::string& vocabulary) {
  std::vector<ElementFunctionPtr> functions;
  for (Result<ElementFunctionPtr> fn :
       {MakeLowerFunction("text"), MakeSplitWhitespaceFunction("text"),
        MakeWordpieceFunction("text", {.vocabulary_file = vocabulary}), MakeSelectFunction({"text"}),
        MakePadOrTruncateFunction("text", kMaxTokens)}) {
    SLUICE_RETURN_IF_ERROR(fn.status());
    functions.push_back(*fn);
  }
  return functions;
}

Pipeline ReadReviews(const std::string& path, const std::vector<ElementFunctionPtr>& text_to_ids, bool training) {
  const Pipeline records = Pipeline::TFRecord({.files = {path}});
  Pipeline text = records.Map(MakeParseExampleFunction("", {{.key = "text", .dtype = DType::kString}}));
  for (const ElementFunctionPtr& fn : text_to_ids) text = text.Map(fn);
  const Pipeline label = records.Map(MakeParseExampleFunction("", {{.key = "label", .dtype = DType::kInt64}}));
  Pipeline reviews = text.Zip({label}).Map(MakeSelectFunction({"text", "label"}));
  if (training) reviews = reviews.Shuffle({.buffer_size = 4000, .seed = 1});
  return reviews.Batch({.batch_size = 32});
}

Status Run(const std::filesystem::path& dir) {
  const std::string vocabulary = (dir / "vocab.txt").string();
  const std::string train_path = (dir / "train.tfrecord").string(), test_path = (dir / "test.tfrecord").string();
  SLUICE_RETURN_IF_ERROR(WriteVocabulary(vocabulary));
  SLUICE_RETURN_IF_ERROR(WriteReviews(train_path, 4000, 1));
  SLUICE_RETURN_IF_ERROR(WriteReviews(test_path, 1000, 2));
  SLUICE_ASSIGN_OR_RETURN(std::vector<ElementFunctionPtr> text_to_ids, TextToIds(vocabulary));

  ModelBuilder builder;
  ModelNode ids = builder.Input({"text", DType::kInt64, Shape{kMaxTokens}});
  ModelNode vectors = builder.Apply(std::make_unique<Embedding>("embedding", EmbeddingOptions{VocabularySize(), 16}), {ids});
  ModelNode pooled = builder.Apply(std::make_unique<MaskedMeanPooling>("mean_pool"), {vectors, ids});
  ModelNode hidden = builder.Apply(
      std::make_unique<Dense>("hidden", DenseOptions{.units = 16, .activation = Activation::kRelu}), {pooled});
  ModelNode logits = builder.Apply(std::make_unique<Dense>("logits", DenseOptions{.units = 1}), {hidden});
  SLUICE_ASSIGN_OR_RETURN(auto model, std::move(builder).Build({logits}, /*seed=*/3, {"logits"}));

  BinaryCrossentropy loss(/*from_logits=*/true);
  Adam adam({.learning_rate = std::make_shared<ConstantLearningRate>(1e-2)});
  Trainer trainer(*model, loss, adam,
                  {.metrics = {[] { return std::make_unique<BinaryAccuracy>(BinaryOptions{.from_logits = true}, "accuracy"); }}});
  SLUICE_ASSIGN_OR_RETURN(DatasetPtr train, ReadReviews(train_path, text_to_ids, true).Build());
  SLUICE_ASSIGN_OR_RETURN(DatasetPtr test, ReadReviews(test_path, text_to_ids, false).Build());
  SLUICE_ASSIGN_OR_RETURN(auto history, trainer.Fit(train, {.epochs = 8, .validation = test, .progress = &std::cout}));
  const double accuracy = history.back().values.at("val_accuracy");
  std::printf("validation accuracy %.4f (required: %.2f)\n", accuracy, kRequiredAccuracy);
  if (accuracy < kRequiredAccuracy) return InternalError("validation accuracy below ", kRequiredAccuracy);

  // The export takes raw text: the vocabulary travels inside the bundle.
  const std::string bundle = (dir / "exported").string();
  SLUICE_RETURN_IF_ERROR(ExportModel(
      *model, bundle,
      {.preprocessing = Preprocessing{.raw_inputs = {{"text", DType::kString, Shape{}}}, .functions = text_to_ids}}));
  std::filesystem::remove(vocabulary);
  SLUICE_ASSIGN_OR_RETURN(auto exported, ExportedModel::Load(bundle));
  const std::vector<std::string> reviews = {"A Wonderful story with brilliant music", "the plot was DULL and tedious",
                                            "Clumsy actors and a boring ending"};
  SLUICE_ASSIGN_OR_RETURN(auto outputs, exported->CallRaw(std::map<std::string, Tensor>{{"text", Tensor::FromVector(reviews)}}));
  const Tensor& scores = outputs.at("logits");
  // The training side on the same reviews: the same functions, then the model.
  Pipeline same = Pipeline::FromSlices({{"text", Tensor::FromVector(reviews)}});
  for (const ElementFunctionPtr& fn : text_to_ids) same = same.Map(fn);
  auto batches = same.Batch({.batch_size = 3}).Elements();
  for (const Element& batch : batches) {
    const Tensor inputs[] = {batch[0]};  // text; batch[1] is its mask
    SLUICE_ASSIGN_OR_RETURN(Tensor expected, model->CallSingle(inputs, /*training=*/false));
    if (!expected.Equals(scores)) return InternalError("the export's logits differ from training's");
  }
  SLUICE_RETURN_IF_ERROR(batches.status());
  for (size_t i = 0; i < reviews.size(); ++i) {
    const float score = scores.data<float>()[i];
    std::printf("%-42s logit %+.3f -> %s\n", ("\"" + reviews[i] + "\"").c_str(), score, score > 0 ? "positive" : "negative");
    if ((score > 0) != (i == 0)) return InternalError("the exported model misjudged \"", reviews[i], "\"");
  }
  return OkStatus();
}

}  // namespace

int main() {
  const auto dir = std::filesystem::temp_directory_path() / StrCat("sluice_text_classifier_raw_", getpid());
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const Status status = Run(dir);
  std::filesystem::remove_all(dir);
  if (!status.ok()) return std::fprintf(stderr, "%s\n", status.ToString().c_str()), 1;
  return 0;
}
