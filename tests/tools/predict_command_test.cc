// `sluice predict`: exported text and image classifiers loaded in a fresh
// process (the CLI) and given raw text / JPEG files print the outputs the
// training pipeline plus the model compute on the same inputs, to the last
// bit (JSON floats have 9 significant digits, which round-trip a float32).
#include <filesystem>
#include <fstream>

#include "sluice/model/export.h"
#include "sluice/tests/model/export_preprocessing_models.h"
#include "sluice/tests/tools/cli_runner.h"

namespace sluice {
namespace {

using testing::TempDir;

// The line predict prints for an input named `name` whose logits are row
// `row` of `logits`.
std::string ExpectedLine(const std::string& name, const Tensor& logits, int64_t row) {
  const ElementSpec spec({{"input", DType::kString, PartialShape{}},
                          {"logits", DType::kFloat32, PartialShape(logits.shape().WithoutFirstDim())}});
  return ElementToJson(spec, Element{Tensor::Scalar(name), logits.Row(row)});
}

TEST(PredictCommandTest, TextBundleInAFreshProcessMatchesTheTrainingPipeline) {
  TempDir dir;
  auto model = testing::TextClassifier();
  const std::string vocabulary = testing::WriteVocabulary(dir);
  const Preprocessing preprocessing = testing::TextPreprocessing(vocabulary);
  const std::vector<std::string> sentences = testing::Sentences();
  const std::vector<Tensor> expected = testing::TrainingPipelineOutputs(*model, preprocessing, sentences);
  ASSERT_EQ(expected.size(), 1u);
  ASSERT_TRUE(ExportModel(*model, dir.File("bundle"), {.preprocessing = preprocessing}).ok());
  std::filesystem::remove(vocabulary);
  {
    std::ofstream text(dir.File("reviews.txt"));
    for (const std::string& sentence : sentences) text << sentence << "\n";
  }
  const CliResult result = RunCli("predict " + dir.File("bundle") + " " + dir.File("reviews.txt") + " --lines");
  ASSERT_EQ(result.exit_code, 0);
  ASSERT_EQ(result.lines.size(), sentences.size());
  for (size_t i = 0; i < sentences.size(); ++i) {
    EXPECT_EQ(result.lines[i], ExpectedLine(dir.File("reviews.txt") + ":" + std::to_string(i + 1), expected[0],
                                            static_cast<int64_t>(i)));
  }
}

TEST(PredictCommandTest, ImageBundleInAFreshProcessMatchesTheTrainingPipeline) {
  TempDir dir;
  auto model = testing::ImageClassifier();
  const std::vector<std::string> jpegs = testing::TestJpegs(dir);
  const std::vector<Tensor> expected = testing::TrainingPipelineOutputs(*model, testing::ImagePreprocessing(), jpegs);
  ASSERT_EQ(expected.size(), 1u);
  ASSERT_TRUE(ExportModel(*model, dir.File("bundle"), {.preprocessing = testing::ImagePreprocessing()}).ok());
  std::string files;
  for (size_t i = 0; i < jpegs.size(); ++i) {
    testing::WriteFileBytes(dir.File(std::to_string(i) + ".jpg"), jpegs[i]);
    files += " " + dir.File(std::to_string(i) + ".jpg");
  }
  const CliResult result = RunCli("predict " + dir.File("bundle") + files);
  ASSERT_EQ(result.exit_code, 0);
  ASSERT_EQ(result.lines.size(), jpegs.size());
  for (size_t i = 0; i < jpegs.size(); ++i) {
    EXPECT_EQ(result.lines[i], ExpectedLine(dir.File(std::to_string(i) + ".jpg"), expected[0], static_cast<int64_t>(i)));
  }
}

TEST(PredictCommandTest, ErrorsNameTheBundleOrTheInput) {
  TempDir dir;
  auto model = testing::ImageClassifier();
  ASSERT_TRUE(ExportModel(*model, dir.File("plain")).ok());
  ASSERT_TRUE(ExportModel(*model, dir.File("bundle"), {.preprocessing = testing::ImagePreprocessing()}).ok());
  testing::WriteFileBytes(dir.File("broken.jpg"), "\xff\xd8 not a jpeg");

  CliResult result = RunCli("predict " + dir.File("plain") + " " + dir.File("broken.jpg"), /*capture_stderr=*/true);
  EXPECT_EQ(result.exit_code, 1);
  ASSERT_EQ(result.lines.size(), 1u);
  EXPECT_NE(result.lines[0].find("carries no preprocessing, so it takes no raw inputs"), std::string::npos)
      << result.lines[0];

  result = RunCli("predict " + dir.File("bundle") + " " + dir.File("broken.jpg"), /*capture_stderr=*/true);
  EXPECT_EQ(result.exit_code, 1);
  ASSERT_EQ(result.lines.size(), 1u);
  EXPECT_NE(result.lines[0].find("DataLoss: inputs " + dir.File("broken.jpg")), std::string::npos) << result.lines[0];

  result = RunCli("predict " + dir.File("bundle") + " " + dir.File("missing.jpg"), /*capture_stderr=*/true);
  EXPECT_EQ(result.exit_code, 1);
  ASSERT_EQ(result.lines.size(), 1u);
  EXPECT_NE(result.lines[0].find("missing.jpg' does not exist"), std::string::npos) << result.lines[0];
}

}  // namespace
}  // namespace sluice
