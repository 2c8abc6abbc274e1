#include "sluice/examples/train_demo.h"

#include <cmath>
#include <filesystem>
#include <random>

#include "sluice/dataset/parse_example.h"
#include "sluice/dataset/pipeline.h"
#include "sluice/dataset/profiler.h"
#include "sluice/model/adam.h"
#include "sluice/model/dense.h"
#include "sluice/model/export.h"
#include "sluice/model/trainer.h"
#include "sluice/ops/unary_ops.h"
#include "sluice/tfrecord/example.pb.h"
#include "sluice/tfrecord/record_writer.h"

namespace sluice {
namespace {

constexpr int kSamples = 2000;
constexpr int kTrainSamples = 1600;
constexpr int kTrainShards = 4;

// Writes examples [begin, end) of the generated data to `shards` GZIP files
// named <prefix>-0000k-of-0000n.tfrecord.gz, round-robin.
Status WriteShards(const std::string& prefix, int shards, const std::vector<float>& x,
                   const std::vector<int64_t>& label, int begin, int end) {
  std::vector<std::unique_ptr<RecordWriter>> writers;
  for (int s = 0; s < shards; ++s) {
    char name[64];
    std::snprintf(name, sizeof(name), "-%05d-of-%05d.tfrecord.gz", s, shards);
    SLUICE_ASSIGN_OR_RETURN(writers.emplace_back(),
                            RecordWriter::Open(prefix + name, {.compression = Compression::kGzip}));
  }
  for (int i = begin; i < end; ++i) {
    tensorflow::Example example;
    auto& features = *example.mutable_features()->mutable_feature();
    features["features"].mutable_float_list()->add_value(x[2 * i]);
    features["features"].mutable_float_list()->add_value(x[2 * i + 1]);
    features["label"].mutable_int64_list()->add_value(label[i]);
    SLUICE_RETURN_IF_ERROR(writers[(i - begin) % shards]->WriteRecord(example.SerializeAsString()));
  }
  for (auto& writer : writers) SLUICE_RETURN_IF_ERROR(writer->Close());
  return OkStatus();
}

Pipeline ReadShards(const std::string& pattern, int cycle_length, bool training, uint64_t seed) {
  const std::vector<FeatureConfig> features = {
      {.key = "features", .dtype = DType::kFloat32, .shape = Shape{2}},
      {.key = "label", .dtype = DType::kInt64},
  };
  Pipeline records = Pipeline::ListFiles({.patterns = {pattern}, .shuffle = training, .seed = seed})
                         .Interleave(MakeTFRecordFunction({.compression = Compression::kGzip}),
                                     {.cycle_length = cycle_length, .block_length = 1})
                         .Map(MakeParseExampleFunction("", features));
  if (training) records = records.Shuffle({.buffer_size = kTrainSamples, .seed = seed});
  return records.Batch({.batch_size = 32}).Prefetch(kAutotune);
}

float Probability(const Tensor& logits, int row) { return 1.0f / (1.0f + std::exp(-logits.data<float>()[row])); }

}  // namespace

Result<TrainDemoResult> RunTrainDemo(const TrainDemoOptions& options, std::ostream& out) {
  namespace fs = std::filesystem;
  // 1. Data: x ~ N(0, 1)^2, label = x0 + x1 > 0; 1600 to train, 400 to validate.
  std::mt19937_64 rng(options.seed);
  std::normal_distribution<float> normal;
  std::vector<float> x(2 * kSamples);
  std::vector<int64_t> label(kSamples);
  for (int i = 0; i < kSamples; ++i) {
    x[2 * i] = normal(rng);
    x[2 * i + 1] = normal(rng);
    label[i] = x[2 * i] + x[2 * i + 1] > 0 ? 1 : 0;
  }
  const std::string data_dir = (fs::path(options.work_dir) / "data").string();
  fs::create_directories(data_dir);
  SLUICE_RETURN_IF_ERROR(WriteShards(data_dir + "/train", kTrainShards, x, label, 0, kTrainSamples));
  SLUICE_RETURN_IF_ERROR(WriteShards(data_dir + "/validation", 1, x, label, kTrainSamples, kSamples));
  out << "Wrote " << kTrainSamples << " training examples in " << kTrainShards << " GZIP TFRecord shards and "
      << kSamples - kTrainSamples << " validation examples to " << data_dir << "\n";

  // 2. Input pipelines.
  SLUICE_ASSIGN_OR_RETURN(DatasetPtr train,
                          ReadShards(data_dir + "/train-*.tfrecord.gz", kTrainShards, true, options.seed).Build());
  SLUICE_ASSIGN_OR_RETURN(DatasetPtr validation,
                          ReadShards(data_dir + "/validation-*.tfrecord.gz", 1, false, options.seed).Build());
  out << "\nTraining input pipeline:\n" << DescribeGraph(*train);

  // 3. Model: Dense(16, relu) -> Dense(1) on logits.
  std::vector<std::unique_ptr<Layer>> layers;
  layers.push_back(std::make_unique<Dense>("hidden", DenseOptions{.units = 16, .activation = Activation::kRelu}));
  layers.push_back(std::make_unique<Dense>("logits", DenseOptions{.units = 1}));
  SLUICE_ASSIGN_OR_RETURN(std::unique_ptr<Model> model,
                          Model::Sequential({"features", DType::kFloat32, Shape{2}}, std::move(layers), options.seed));

  // 4. Train.
  BinaryCrossentropy loss(/*from_logits=*/true);
  Adam adam({.learning_rate = std::make_shared<ConstantLearningRate>(1e-2)});
  Trainer trainer(*model, loss, adam,
                  {.metrics = {[] {
                     return std::make_unique<BinaryAccuracy>(BinaryOptions{.from_logits = true}, "accuracy");
                   }}});
  SLUICE_ASSIGN_OR_RETURN(std::unique_ptr<SummaryWriter> summaries,
                          SummaryWriter::Open((fs::path(options.work_dir) / "logs").string()));
  out << "\nTraining Dense(16, relu) -> Dense(1) with Adam(1e-2), batch 32, " << options.epochs << " epochs:\n";
  auto profile = std::make_shared<Profile>();
  SLUICE_ASSIGN_OR_RETURN(std::vector<EpochLogs> history,
                          trainer.Fit(train, {.epochs = options.epochs, .validation = validation, .progress = &out,
                                              .summaries = summaries.get(), .profile = profile}));
  TrainDemoResult result;
  result.validation_accuracy = history.back().values.at("val_accuracy");

  // 5. Export, reload, predict.
  const Tensor queries = Tensor::FromVector<float>({2, 1, -2, -1}, Shape{2, 2});
  const Tensor query_inputs[] = {queries};
  SLUICE_ASSIGN_OR_RETURN(Tensor logits, model->CallSingle(query_inputs, /*training=*/false));
  const std::string export_dir = (fs::path(options.work_dir) / "exported_model").string();
  fs::remove_all(export_dir);
  SLUICE_RETURN_IF_ERROR(ExportModel(*model, export_dir));
  SLUICE_ASSIGN_OR_RETURN(std::unique_ptr<ExportedModel> exported, ExportedModel::Load(export_dir));
  SLUICE_ASSIGN_OR_RETURN(std::vector<Tensor> exported_logits, exported->Call(query_inputs));
  for (int row = 0; row < 2; ++row) {
    result.predictions[row] = Probability(logits, row);
    result.exported_predictions[row] = Probability(exported_logits[0], row);
  }
  out << "\nExported to " << export_dir << " and reloaded. P(label = 1):\n";
  char line[160];
  std::snprintf(line, sizeof(line), "  [ 2,  1] -> %.4f in process, %.4f exported\n  [-2, -1] -> %.4f in process, %.4f exported\n",
                result.predictions[0], result.exported_predictions[0], result.predictions[1],
                result.exported_predictions[1]);
  out << line;
  out << "\nTensorBoard scalars: " << summaries->path() << "\n";
  // 6. The profiler's verdict on the training input pipeline.
  out << "\nProfile of the training input pipeline over all epochs:\n"
      << FormatProfileReport(AnalyzeProfile(profile->Snapshot()));
  return result;
}

}  // namespace sluice
