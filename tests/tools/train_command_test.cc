// `sluice train JOB.pbtxt` with export_preprocessing (model/job.proto), then
// `sluice predict BUNDLE RECORD...` in a fresh process: the bundle carries
// the training pipeline's parse_example, so serialized tf.train.Example
// records give the outputs that the training pipeline's parse plus the
// trained model compute on them, to the last bit.
#include <filesystem>
#include <fstream>

#include "sluice/dataset/builtin_functions.h"
#include "sluice/dataset/pipeline.h"
#include "sluice/dataset/pipeline_spec.pb.h"
#include "sluice/dataset/pipeline_spec_io.h"
#include "sluice/model/export.h"
#include "sluice/tests/temp_dir.h"
#include "sluice/tests/tfrecord/example_test_util.h"
#include "sluice/tests/tools/cli_runner.h"

namespace sluice {
namespace {

using testing::TempDir;

const std::string kTrainSpec = (std::filesystem::current_path() / "examples/specs/demo_input.pbtxt").string();

// A one-epoch job on the demo's data, exporting to `bundle` with `preprocessing`.
std::string WriteJob(const TempDir& dir, const std::string& name, const std::string& preprocessing,
                     const std::string& export_directory = "bundle") {
  const std::string path = dir.File(name);
  std::ofstream(path) << "input { train: \"" << kTrainSpec << "\" }\n"
                      << "model {\n  input { name: \"features\" dtype: \"float32\" shape: 2 }\n"
                      << "  layers { name: \"logits\" dense { units: 1 } }\n}\n"
                      << "seed: 3\nloss { binary_crossentropy { from_logits: true } }\n"
                      << "optimizer { learning_rate { constant: 0.01 } adam {} }\nepochs: 1\n"
                      << (export_directory.empty() ? "" : "export_directory: \"" + export_directory + "\"\n")
                      << preprocessing;
  return path;
}

// What the training pipeline's first map (parse_example) and then the
// exported model make of `records`, as predict prints them.
std::vector<std::string> TrainingPipelineLines(const std::string& bundle, const std::vector<std::string>& records,
                                               const std::vector<std::string>& names) {
  const spec::Pipeline train = *ReadSpecFile(kTrainSpec);
  ElementFunctionPtr parse;
  for (const spec::DatasetNode& op : train.ops()) {
    if (op.has_map()) {
      parse = *ElementFunctionFromSpec(op.map().fn());
      break;
    }
  }
  EXPECT_NE(parse, nullptr);
  Pipeline pipeline = Pipeline::FromSlices({{"record", Tensor::FromVector(records)}})
                          .Map(parse)
                          .Map(MakeSelectFunction({"features"}))
                          .Batch({.batch_size = static_cast<int64_t>(records.size())});
  std::vector<Element> batches;
  for (const Element& batch : pipeline.Elements()) batches.push_back(batch);
  EXPECT_EQ(batches.size(), 1u);
  std::unique_ptr<ExportedModel> model = *ExportedModel::Load(bundle);
  const std::vector<Tensor> outputs = *model->Call(std::vector<Tensor>{batches.at(0)[0]});
  std::vector<std::string> lines;
  for (size_t row = 0; row < records.size(); ++row) {
    std::vector<ComponentSpec> spec = {{"input", DType::kString, PartialShape{}}};
    Element element{Tensor::Scalar(names[row])};
    for (size_t k = 0; k < outputs.size(); ++k) {
      spec.push_back({model->output_names()[k], outputs[k].dtype(), PartialShape(outputs[k].shape().WithoutFirstDim())});
      element.components.push_back(outputs[k].Row(static_cast<int64_t>(row)));
    }
    lines.push_back(ElementToJson(ElementSpec(std::move(spec)), element));
  }
  return lines;
}

TEST(TrainCommandTest, ExportCarriesTheTrainPipelinesMapsForPredict) {
  TempDir dir;
  ASSERT_EQ(RunCli("demo --dir " + dir.path()).exit_code, 0);
  const std::string job = WriteJob(
      dir, "job.pbtxt", "export_preprocessing { raw_inputs { name: \"record\" dtype: \"string\" } train_maps: 1 }\n");
  const CliResult trained = RunCli("--help >/dev/null && cd " + dir.path() + " && " + SLUICE_CLI_PATH + " train " + job);
  ASSERT_EQ(trained.exit_code, 0);
  ASSERT_GE(trained.lines.size(), 2u);
  EXPECT_EQ(trained.lines[trained.lines.size() - 2], "Exported to bundle");

  using testing::FloatFeature;
  using testing::Int64Feature;
  const std::vector<std::string> records = {
      testing::SerializeExample({{"features", FloatFeature({0.5f, -1.25f})}, {"label", Int64Feature({1})}}),
      testing::SerializeExample({{"label", Int64Feature({0})}, {"features", FloatFeature({-2.0f, 3.0f})}}),
  };
  std::vector<std::string> names, files;
  for (size_t i = 0; i < records.size(); ++i) {
    names.push_back(dir.File("record" + std::to_string(i) + ".pb"));
    std::ofstream(names.back(), std::ios::binary) << records[i];
    files.push_back(" " + names.back());
  }
  const CliResult predicted = RunCli("predict " + dir.File("bundle") + files[0] + files[1]);
  ASSERT_EQ(predicted.exit_code, 0);
  EXPECT_EQ(predicted.lines, TrainingPipelineLines(dir.File("bundle"), records, names));
}

TEST(TrainCommandTest, ExportPreprocessingErrorsComeBeforeTraining) {
  TempDir dir;
  const std::string raw = "raw_inputs { name: \"record\" dtype: \"string\" }";
  struct Case {
    std::string job;
    std::string error;
  };
  const std::vector<Case> cases = {
      {WriteJob(dir, "many.pbtxt", "export_preprocessing { " + raw + " train_maps: 3 }"),
       "train: export_preprocessing.train_maps: 3 maps asked for; the train pipeline '" + kTrainSpec + "' has 1"},
      {WriteJob(dir, "both.pbtxt", "export_preprocessing { " + raw + " train_maps: 1 functions: \"f.pbtxt\" }"),
       "export_preprocessing: give one of train_maps (> 0) and functions"},
      {WriteJob(dir, "no_export.pbtxt", "export_preprocessing { " + raw + " train_maps: 1 }", ""),
       "export_preprocessing: needs export_directory"},
      {WriteJob(dir, "no_raw.pbtxt", "export_preprocessing { train_maps: 1 }"),
       "export_preprocessing.raw_inputs: 1 to 64 raw inputs"},
      // The model's input is float32 features; lowercased text is not it.
      {WriteJob(dir, "unparsed.pbtxt",
                "export_preprocessing { raw_inputs { name: \"features\" dtype: \"string\" } functions: \"maps.pbtxt\" }"),
       "train: export_preprocessing: preprocessing: its output 'features' is string[], but the model input is "
       "float32[2]"},
  };
  std::ofstream(dir.File("maps.pbtxt")) << "ops { map { fn { lower { component: \"features\" } } } }\n";
  for (const Case& c : cases) {
    SCOPED_TRACE(c.job);
    const CliResult result = RunCli("train " + c.job, /*capture_stderr=*/true);
    EXPECT_EQ(result.exit_code, 1);
    ASSERT_FALSE(result.lines.empty());
    EXPECT_NE(result.lines.back().find(c.error), std::string::npos) << result.lines.back();
    EXPECT_FALSE(std::filesystem::exists(dir.File("bundle")));
  }
}

}  // namespace
}  // namespace sluice
