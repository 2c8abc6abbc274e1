// Exported models that carry their preprocessing: a bundle given raw text or
// JPEG bytes returns what the training pipeline plus the model return on
// the same inputs; bundles are self-contained and relocatable; random
// functions, callables and damaged bundles are refused with clear errors.
// (The same bundles loaded in a fresh process: tests/tools/predict_command_test.cc.)
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <functional>

#include "sluice/tests/model/export_preprocessing_models.h"
#include "sluice/dataset/pipeline_spec.pb.h"
#include "sluice/dataset/parse_example.h"
#include "sluice/model/export.h"
#include "sluice/model/model.pb.h"
#include "sluice/tfrecord/example.pb.h"

namespace sluice {
namespace {

namespace fs = std::filesystem;
using testing::ImagePreprocessing;
using testing::TempDir;
using testing::TextPreprocessing;

bool Contains(const Status& status, std::string_view text) {
  return status.message().find(text) != std::string::npos;
}

// `bundle` loaded and given `raw` (one string per element) returns
// exactly `expected`.
void ExpectRawCallGives(const std::string& bundle, const std::vector<std::string>& raw,
                        const std::vector<Tensor>& expected) {
  auto loaded = ExportedModel::Load(bundle);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  const Tensor raw_batch[] = {Tensor::FromVector(raw)};
  Result<std::vector<Tensor>> got = (*loaded)->CallRaw(raw_batch);
  ASSERT_TRUE(got.ok()) << got.status();
  ASSERT_EQ(got->size(), expected.size());
  for (size_t i = 0; i < got->size(); ++i) EXPECT_TRUE((*got)[i].Equals(expected[i])) << (*got)[i].DebugString();
}

// A bundle of the text classifier whose vocabulary is gone from where it
// was exported from: only the bundle's own copy remains.
std::string ExportTextClassifier(const TempDir& dir, Model& model, const std::string& name = "exported") {
  const std::string vocabulary = testing::WriteVocabulary(dir);
  EXPECT_TRUE(ExportModel(model, dir.File(name), {.preprocessing = TextPreprocessing(vocabulary)}).ok());
  fs::remove(vocabulary);
  return dir.File(name);
}

TEST(ExportPreprocessingTest, TextBundleGivesTheTrainingPipelinesOutputsOnRawText) {
  TempDir dir;
  auto model = testing::TextClassifier();
  const std::string vocabulary = testing::WriteVocabulary(dir);
  const std::vector<std::string> sentences = testing::Sentences();
  const std::vector<Tensor> expected = testing::TrainingPipelineOutputs(*model, TextPreprocessing(vocabulary), sentences);
  ASSERT_EQ(expected.size(), 1u);
  const std::string bundle = ExportTextClassifier(dir, *model);
  EXPECT_TRUE(fs::exists(bundle + "/assets/vocab.txt"));
  // Moved as a directory, the bundle still finds its vocabulary.
  fs::rename(bundle, dir.File("moved"));
  auto loaded = ExportedModel::Load(dir.File("moved"));
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  ASSERT_TRUE((*loaded)->has_preprocessing());
  ASSERT_EQ((*loaded)->raw_inputs().size(), 1u);
  EXPECT_EQ((*loaded)->raw_inputs()[0].name, "text");
  EXPECT_EQ((*loaded)->raw_inputs()[0].dtype, DType::kString);
  ExpectRawCallGives(dir.File("moved"), sentences, expected);
  auto named = (*loaded)->CallRaw(std::map<std::string, Tensor>{{"text", Tensor::FromVector(sentences)}});
  ASSERT_TRUE(named.ok()) << named.status();
  EXPECT_TRUE(named->at("logits").Equals(expected[0]));
  // The model's own inputs still work through Call.
  EXPECT_EQ((*loaded)->inputs()[0].name, "text");
  EXPECT_EQ((*loaded)->inputs()[0].dtype, DType::kInt64);
}

TEST(ExportPreprocessingTest, ImageBundleGivesTheTrainingPipelinesOutputsOnJpegBytes) {
  TempDir dir;
  auto model = testing::ImageClassifier();
  const std::vector<std::string> jpegs = testing::TestJpegs(dir);
  const std::vector<Tensor> expected = testing::TrainingPipelineOutputs(*model, ImagePreprocessing(), jpegs);
  ASSERT_EQ(expected.size(), 1u);
  ASSERT_TRUE(ExportModel(*model, dir.File("exported"), {.preprocessing = ImagePreprocessing()}).ok());
  ExpectRawCallGives(dir.File("exported"), jpegs, expected);
  // One element's batch gives that element's row.
  auto loaded = ExportedModel::Load(dir.File("exported"));
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  const Tensor one[] = {Tensor::FromVector(std::vector<std::string>{jpegs[1]})};
  Result<std::vector<Tensor>> single = (*loaded)->CallRaw(one);
  ASSERT_TRUE(single.ok()) << single.status();
  for (int64_t j = 0; j < 3; ++j) {
    EXPECT_NEAR((*single)[0].data<float>()[j], expected[0].data<float>()[3 + j], 1e-5f);
  }
}

TEST(ExportPreprocessingTest, SerializedExamplesGoThroughParseExample) {
  TempDir dir;
  auto model = testing::TextClassifier();
  const std::string vocabulary = testing::WriteVocabulary(dir);
  Preprocessing preprocessing = TextPreprocessing(vocabulary);
  preprocessing.raw_inputs = {{"record", DType::kString, Shape{}}};
  preprocessing.functions.insert(
      preprocessing.functions.begin(),
      *MakeParseExampleFunction("record", {{.key = "text", .dtype = DType::kString, .shape = Shape{},
                                            .default_value = Tensor::Scalar("")}}));
  std::vector<std::string> records;
  for (const std::string& sentence : testing::Sentences()) {
    tensorflow::Example example;
    (*example.mutable_features()->mutable_feature())["text"].mutable_bytes_list()->add_value(sentence);
    records.push_back(example.SerializeAsString());
  }
  const std::vector<Tensor> expected = testing::TrainingPipelineOutputs(*model, preprocessing, records);
  ASSERT_TRUE(ExportModel(*model, dir.File("exported"), {.preprocessing = preprocessing}).ok());
  ExpectRawCallGives(dir.File("exported"), records, expected);
  // The same logits as from the text itself.
  ExpectRawCallGives(ExportTextClassifier(dir, *model, "text"), testing::Sentences(), expected);
}

TEST(ExportPreprocessingTest, EachFileIsCopiedOnceUnderADistinctName) {
  TempDir dir;
  auto model = testing::TextClassifier();
  const std::string vocabulary = testing::WriteVocabulary(dir);
  fs::create_directories(dir.File("tags"));
  std::ofstream(dir.File("tags/vocab.txt")) << "news\nsport\n";
  // A second raw input looked up in another file of the same name, and a
  // third in the wordpiece vocabulary, which is then named twice.
  Preprocessing preprocessing = TextPreprocessing(vocabulary);
  preprocessing.raw_inputs.push_back({"tag", DType::kString, Shape{}});
  preprocessing.raw_inputs.push_back({"word", DType::kString, Shape{}});
  preprocessing.functions.insert(preprocessing.functions.begin(),
                                 {*MakeLookupFunction("tag", {.vocabulary_file = dir.File("tags/vocab.txt")}),
                                  *MakeLookupFunction("word", {.vocabulary_file = vocabulary})});
  const Status exported = ExportModel(*model, dir.File("exported"), {.preprocessing = preprocessing});
  ASSERT_TRUE(exported.ok()) << exported;
  std::vector<std::string> assets;
  for (const auto& entry : fs::directory_iterator(dir.File("exported/assets"))) {
    assets.push_back(entry.path().filename().string());
  }
  std::sort(assets.begin(), assets.end());
  EXPECT_EQ(assets, (std::vector<std::string>{"1_vocab.txt", "vocab.txt"}));
  auto loaded = ExportedModel::Load(dir.File("exported"));
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  const std::vector<std::string> sentences = testing::Sentences();
  auto got = (*loaded)->CallRaw(std::map<std::string, Tensor>{
      {"text", Tensor::FromVector(sentences)},
      {"tag", Tensor::FromVector(std::vector<std::string>(sentences.size(), "sport"))},
      {"word", Tensor::FromVector(sentences)}});
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_TRUE(got->at("logits").Equals(testing::TrainingPipelineOutputs(*model, TextPreprocessing(vocabulary), sentences)[0]));
}

TEST(ExportPreprocessingTest, RandomFunctionsAndCallablesAreNotExportable) {
  TempDir dir;
  auto model = testing::ImageClassifier();
  Preprocessing random = ImagePreprocessing();
  random.functions.insert(random.functions.begin() + 2, *MakeRandomFlipFunction("image", {}));
  Status refused = ExportModel(*model, dir.File("random"), {.preprocessing = random});
  EXPECT_EQ(refused.code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(Contains(refused, "function 2 (random_flip")) << refused;
  EXPECT_TRUE(Contains(refused, "is random")) << refused;
  Preprocessing crop = ImagePreprocessing();
  crop.functions[0] = *MakeDecodeJpegRandomCropFunction("image", {.height = 28, .width = 28});
  refused = ExportModel(*model, dir.File("crop"), {.preprocessing = crop});
  EXPECT_TRUE(Contains(refused, "function 0 (decode_jpeg_random_crop")) << refused;
  Preprocessing lambda = ImagePreprocessing();
  lambda.functions.push_back(MakeLambdaFunction([](Element e) -> Result<Element> { return e; }));
  refused = ExportModel(*model, dir.File("lambda"), {.preprocessing = lambda});
  EXPECT_EQ(refused.code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(Contains(refused, "function 4 (lambda) cannot be exported")) << refused;
  EXPECT_FALSE(fs::exists(dir.File("random")) || fs::exists(dir.File("crop")) || fs::exists(dir.File("lambda")));
}

TEST(ExportPreprocessingTest, ChainsThatDoNotMakeTheModelsInputsAreRefused) {
  TempDir dir;
  auto model = testing::TextClassifier();
  const std::string vocabulary = testing::WriteVocabulary(dir);
  Preprocessing unpadded = TextPreprocessing(vocabulary);
  unpadded.functions.pop_back();
  Status refused = ExportModel(*model, dir.File("m"), {.preprocessing = unpadded});
  EXPECT_EQ(refused.code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(Contains(refused, "its output 'text' is int64[?], but the model input is int64[8]")) << refused;
  Preprocessing renamed = TextPreprocessing(vocabulary);
  renamed.raw_inputs[0].name = "sentence";
  refused = ExportModel(*model, dir.File("m"), {.preprocessing = renamed});
  EXPECT_TRUE(Contains(refused, "function 0 (lower(text))")) << refused;
  Preprocessing none = TextPreprocessing(vocabulary);
  none.raw_inputs.clear();
  EXPECT_EQ(ExportModel(*model, dir.File("m"), {.preprocessing = none}).code(), StatusCode::kInvalidArgument);
}

TEST(ExportPreprocessingTest, RawCallsCheckTheirInputs) {
  TempDir dir;
  auto model = testing::TextClassifier();
  auto loaded = *ExportedModel::Load(ExportTextClassifier(dir, *model));
  const Tensor ints[] = {Tensor::FromVector(std::vector<int64_t>{1, 2})};
  Status bad = loaded->CallRaw(ints).status();
  EXPECT_EQ(bad.code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(Contains(bad, "input 'text' must be string[?] (batch first), got int64[2]")) << bad;
  EXPECT_TRUE(Contains(loaded->CallRaw(std::map<std::string, Tensor>{}).status(), "input 'text' is missing"));
  const Tensor not_utf8[] = {Tensor::FromVector(std::vector<std::string>{"fine", "\xff"})};
  bad = loaded->CallRaw(not_utf8).status();
  EXPECT_EQ(bad.code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(Contains(bad, "preprocessing row 1")) << bad;

  auto plain_model = testing::ImageClassifier();
  ASSERT_TRUE(ExportModel(*plain_model, dir.File("plain")).ok());
  auto plain = *ExportedModel::Load(dir.File("plain"));
  EXPECT_FALSE(plain->has_preprocessing());
  EXPECT_TRUE(plain->raw_inputs().empty());
  EXPECT_EQ(plain->CallRaw(ints).status().code(), StatusCode::kFailedPrecondition);
}

// Rewrites function `index` of a bundle's preprocessing.pb.
void ReplaceStoredFunction(const std::string& bundle, int index, const spec::ElementFunction& fn) {
  model::Preprocessing stored;
  {
    std::ifstream in(bundle + "/preprocessing.pb", std::ios::binary);
    ASSERT_TRUE(stored.ParseFromIstream(&in));
  }
  stored.set_functions(index, fn.SerializeAsString());
  std::ofstream out(bundle + "/preprocessing.pb", std::ios::binary | std::ios::trunc);
  ASSERT_TRUE(stored.SerializeToOstream(&out));
}

// Loads a fresh copy of `bundle` after `damage` changed it.
Status LoadDamagedCopy(const std::string& bundle, const std::function<void(const fs::path& copy)>& damage) {
  const fs::path copy = bundle + "-damaged";
  fs::remove_all(copy);
  fs::copy(bundle, copy, fs::copy_options::recursive);
  damage(copy);
  return ExportedModel::Load(copy.string()).status();
}

TEST(ExportPreprocessingTest, DamagedBundlesAreDataLossNamingTheFile) {
  TempDir dir;
  auto model = testing::TextClassifier();
  const std::string bundle = ExportTextClassifier(dir, *model);
  struct Case {
    std::string what;
    std::function<void(const fs::path&)> damage;
    std::vector<std::string> message_parts;
  };
  const Case cases[] = {
      {"a missing vocabulary", [](const fs::path& copy) { fs::remove(copy / "assets" / "vocab.txt"); },
       {"preprocessing.pb: function 2", "vocab.txt"}},
      {"a damaged preprocessing file",
       [](const fs::path& copy) {
         std::ofstream(copy / "preprocessing.pb", std::ios::binary | std::ios::trunc) << "\xff\xff\xff junk";
       },
       {"preprocessing.pb is not a sluice.model.Preprocessing message"}},
      {"a random function written into the bundle by hand",
       [](const fs::path& copy) {
         spec::ElementFunction flip;
         flip.mutable_random_flip()->set_component("text");
         ReplaceStoredFunction(copy.string(), 0, flip);
       },
       {"function 0 (random_flip", "is random"}},
      {"a vocabulary path that leaves the bundle",
       [](const fs::path& copy) {
         spec::ElementFunction escaping;
         escaping.mutable_wordpiece()->set_component("text");
         escaping.mutable_wordpiece()->set_vocabulary_file("../vocab.txt");
         ReplaceStoredFunction(copy.string(), 2, escaping);
       },
       {"function 2: it names '../vocab.txt', which lies outside the bundle"}},
      {"counts over the limits",
       [](const fs::path& copy) {
         model::Preprocessing many;
         for (size_t i = 0; i <= kMaxRawInputs; ++i) many.add_raw_inputs()->set_dtype("string");
         std::ofstream(copy / "preprocessing.pb", std::ios::binary | std::ios::trunc) << many.SerializeAsString();
       },
       {"over the limits"}},
  };
  for (const Case& c : cases) {
    const Status status = LoadDamagedCopy(bundle, c.damage);
    EXPECT_EQ(status.code(), StatusCode::kDataLoss) << c.what << ": " << status;
    for (const std::string& part : c.message_parts) EXPECT_TRUE(Contains(status, part)) << c.what << ": " << status;
  }
}

}  // namespace
}  // namespace sluice
