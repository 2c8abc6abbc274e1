#include "sluice/model/job.h"

#include <cmath>
#include <filesystem>
#include <memory>
#include <optional>
#include <set>

#include "sluice/dataset/pipeline_spec_io.h"
#include "sluice/dataset/shard_dataset.h"
#include "sluice/dataset/text_proto_file.h"
#include "sluice/model/adam.h"
#include "sluice/model/checkpoint_manager.h"
#include "sluice/model/export.h"
#include "sluice/model/job_preprocessing.h"
#include "sluice/model/learning_rate_schedule.h"
#include "sluice/model/sgd.h"
#include "sluice/model/summary_writer.h"
#include "sluice/model/training_checkpoint.h"

namespace sluice {
namespace {

namespace fs = std::filesystem;

// Job messages nest a few levels (job, optimizer, schedule); this is ample.
constexpr int kMaxJobMessageDepth = 16;
constexpr int64_t kMaxStepsPerEpoch = int64_t{1} << 40;
constexpr int32_t kMaxAucThresholds = 1 << 20;
constexpr int32_t kDefaultMaxToKeep = 3;

// What ReadTrainingJob found wrong: "training job 'F': FIELD: WHY".
class JobErrors {
 public:
  explicit JobErrors(std::string path) : path_(std::move(path)) {}
  template <typename... Args>
  Status Invalid(std::string_view field, const Args&... why) const {
    return InvalidArgumentError("training job '", path_, "': ", field, ": ", why...);
  }

 private:
  const std::string path_;
};

bool Positive(double value) { return std::isfinite(value) && value > 0; }

Status CheckSchedule(const JobErrors& errors, const model::LearningRateConfig& rate) {
  switch (rate.kind_case()) {
    case model::LearningRateConfig::kConstant:
      if (!Positive(rate.constant())) return errors.Invalid("optimizer.learning_rate.constant", "must be > 0");
      return OkStatus();
    case model::LearningRateConfig::kStepDecay: {
      const model::StepDecayConfig& s = rate.step_decay();
      if (!Positive(s.initial_rate()) || s.step_size() <= 0 || !Positive(s.gamma())) {
        return errors.Invalid("optimizer.learning_rate.step_decay", "initial_rate > 0, step_size > 0 and gamma > 0");
      }
      return OkStatus();
    }
    case model::LearningRateConfig::kCosineDecay: {
      const model::CosineDecayConfig& c = rate.cosine_decay();
      if (!Positive(c.initial_rate()) || c.decay_steps() <= 0 || !(c.alpha() >= 0 && c.alpha() <= 1)) {
        return errors.Invalid("optimizer.learning_rate.cosine_decay",
                              "initial_rate > 0, decay_steps > 0 and alpha in [0, 1]");
      }
      return OkStatus();
    }
    case model::LearningRateConfig::KIND_NOT_SET: break;
  }
  return errors.Invalid("optimizer.learning_rate", "required: constant, step_decay or cosine_decay");
}

Status CheckOptimizer(const JobErrors& errors, const model::OptimizerConfig& optimizer) {
  SLUICE_RETURN_IF_ERROR(CheckSchedule(errors, optimizer.learning_rate()));
  if (optimizer.has_clip_global_norm() && !Positive(optimizer.clip_global_norm())) {
    return errors.Invalid("optimizer.clip_global_norm", "must be > 0");
  }
  switch (optimizer.kind_case()) {
    case model::OptimizerConfig::kSgd:
      if (!(optimizer.sgd().momentum() >= 0 && optimizer.sgd().momentum() < 1)) {
        return errors.Invalid("optimizer.sgd.momentum", "must be in [0, 1)");
      }
      return OkStatus();
    case model::OptimizerConfig::kAdam: {
      const model::AdamConfig& a = optimizer.adam();
      const auto in_unit = [](double v) { return v >= 0 && v < 1; };
      if ((a.has_beta_1() && !in_unit(a.beta_1())) || (a.has_beta_2() && !in_unit(a.beta_2())) ||
          (a.has_epsilon() && !Positive(a.epsilon())) || !(a.weight_decay() >= 0 && std::isfinite(a.weight_decay()))) {
        return errors.Invalid("optimizer.adam", "beta_1 and beta_2 in [0, 1), epsilon > 0, weight_decay >= 0");
      }
      return OkStatus();
    }
    case model::OptimizerConfig::KIND_NOT_SET: break;
  }
  return errors.Invalid("optimizer", "required: sgd or adam");
}

Status CheckBinaryMetric(const JobErrors& errors, std::string_view field, const model::BinaryMetricConfig& m) {
  if (!m.has_threshold()) return OkStatus();
  const double t = m.threshold();
  if (m.from_logits() ? !(t > 0 && t < 1) : !(t >= 0 && t <= 1)) {
    return errors.Invalid(field, "threshold must be in ", m.from_logits() ? "(0, 1) with from_logits" : "[0, 1]");
  }
  return OkStatus();
}

Status CheckMetrics(const JobErrors& errors, const model::TrainingJob& job) {
  for (int i = 0; i < job.metrics_size(); ++i) {
    const model::MetricConfig& m = job.metrics(i);
    const std::string field = StrCat("metrics[", i, "]");
    switch (m.kind_case()) {
      case model::MetricConfig::kBinaryAccuracy:
        SLUICE_RETURN_IF_ERROR(CheckBinaryMetric(errors, field, m.binary_accuracy()));
        break;
      case model::MetricConfig::kPrecision:
        SLUICE_RETURN_IF_ERROR(CheckBinaryMetric(errors, field, m.precision()));
        break;
      case model::MetricConfig::kRecall:
        SLUICE_RETURN_IF_ERROR(CheckBinaryMetric(errors, field, m.recall()));
        break;
      case model::MetricConfig::kAuc:
        if (m.auc().has_num_thresholds() &&
            (m.auc().num_thresholds() < 2 || m.auc().num_thresholds() > kMaxAucThresholds)) {
          return errors.Invalid(field, "auc.num_thresholds must be in [2, ", kMaxAucThresholds, "]");
        }
        break;
      case model::MetricConfig::kSparseCategoricalAccuracy:
        break;
      case model::MetricConfig::KIND_NOT_SET:
        return errors.Invalid(field, "no kind set (binary_accuracy, precision, recall, auc, "
                                     "sparse_categorical_accuracy)");
    }
  }
  return OkStatus();
}

Status CheckJob(const JobErrors& errors, const model::TrainingJob& job) {
  if (job.input().train().empty()) return errors.Invalid("input.train", "required: a pipeline spec file");
  if (job.model().input().name().empty()) return errors.Invalid("model.input.name", "required");
  if (Result<DType> dtype = ParseDType(job.model().input().dtype()); !dtype.ok()) {
    return errors.Invalid("model.input.dtype", dtype.status().message());
  }
  if (job.model().layers().empty()) return errors.Invalid("model.layers", "at least one layer");
  if (job.loss().kind_case() == model::LossConfig::KIND_NOT_SET) {
    return errors.Invalid("loss", "required: binary_crossentropy, sparse_categorical_crossentropy or "
                                  "mean_squared_error");
  }
  SLUICE_RETURN_IF_ERROR(CheckOptimizer(errors, job.optimizer()));
  SLUICE_RETURN_IF_ERROR(CheckMetrics(errors, job));
  if (job.epochs() < 0 || job.epochs() > kMaxJobEpochs) {
    return errors.Invalid("epochs", "must be in [1, ", kMaxJobEpochs, "] (0: 1)");
  }
  if (job.steps_per_epoch() < 0 || job.steps_per_epoch() > kMaxStepsPerEpoch) {
    return errors.Invalid("steps_per_epoch", "must be in [0, ", kMaxStepsPerEpoch, "] (0: a pass per epoch)");
  }
  if (job.checkpoint().every_epochs() < 0) return errors.Invalid("checkpoint.every_epochs", "must be >= 0 (0: 1)");
  if (job.has_export_preprocessing()) {
    const model::ExportPreprocessingConfig& preprocessing = job.export_preprocessing();
    if (job.export_directory().empty()) {
      return errors.Invalid("export_preprocessing", "needs export_directory: the export is what carries it");
    }
    if (preprocessing.raw_inputs().empty() || static_cast<size_t>(preprocessing.raw_inputs_size()) > kMaxRawInputs) {
      return errors.Invalid("export_preprocessing.raw_inputs", "1 to ", kMaxRawInputs,
                            " raw inputs (name, dtype, shape per element), got ", preprocessing.raw_inputs_size());
    }
    if (preprocessing.train_maps() < 0 ||
        static_cast<size_t>(preprocessing.train_maps()) > kMaxPreprocessingFunctions) {
      return errors.Invalid("export_preprocessing.train_maps", "must be in [0, ", kMaxPreprocessingFunctions,
                            "], got ", preprocessing.train_maps());
    }
    if ((preprocessing.train_maps() > 0) == !preprocessing.functions().empty()) {
      return errors.Invalid("export_preprocessing", "give one of train_maps (> 0) and functions");
    }
  }
  return OkStatus();
}

std::unique_ptr<Loss> MakeLoss(const model::LossConfig& loss) {
  switch (loss.kind_case()) {
    case model::LossConfig::kBinaryCrossentropy:
      return std::make_unique<BinaryCrossentropy>(loss.binary_crossentropy().from_logits());
    case model::LossConfig::kSparseCategoricalCrossentropy:
      return std::make_unique<SparseCategoricalCrossentropy>(loss.sparse_categorical_crossentropy().from_logits());
    case model::LossConfig::kMeanSquaredError:
    case model::LossConfig::KIND_NOT_SET:
      break;
  }
  return std::make_unique<MeanSquaredErrorLoss>();
}

std::shared_ptr<const LearningRateSchedule> MakeSchedule(const model::LearningRateConfig& rate) {
  switch (rate.kind_case()) {
    case model::LearningRateConfig::kStepDecay:
      return std::make_shared<StepDecay>(rate.step_decay().initial_rate(), rate.step_decay().step_size(),
                                         rate.step_decay().gamma());
    case model::LearningRateConfig::kCosineDecay:
      return std::make_shared<CosineDecay>(rate.cosine_decay().initial_rate(), rate.cosine_decay().decay_steps(),
                                           rate.cosine_decay().alpha());
    case model::LearningRateConfig::kConstant:
    case model::LearningRateConfig::KIND_NOT_SET:
      break;
  }
  return std::make_shared<ConstantLearningRate>(rate.constant());
}

std::unique_ptr<Optimizer> MakeOptimizer(const model::OptimizerConfig& config) {
  OptimizerOptions options{.learning_rate = MakeSchedule(config.learning_rate())};
  if (config.has_clip_global_norm()) options.clip_global_norm = config.clip_global_norm();
  if (config.has_sgd()) {
    return std::make_unique<Sgd>(std::move(options),
                                 SgdOptions{.momentum = config.sgd().momentum(), .nesterov = config.sgd().nesterov()});
  }
  AdamOptions adam;
  const model::AdamConfig& a = config.adam();
  if (a.has_beta_1()) adam.beta_1 = a.beta_1();
  if (a.has_beta_2()) adam.beta_2 = a.beta_2();
  if (a.has_epsilon()) adam.epsilon = a.epsilon();
  adam.weight_decay = a.weight_decay();
  return std::make_unique<Adam>(std::move(options), adam);
}

BinaryOptions MakeBinaryOptions(const model::BinaryMetricConfig& m) {
  BinaryOptions options{.from_logits = m.from_logits()};
  if (m.has_threshold()) options.threshold = m.threshold();
  return options;
}

MetricFactory MakeMetricFactory(const model::MetricConfig& m) {
  const auto named = [&](std::string_view kind) { return m.name().empty() ? std::string(kind) : m.name(); };
  switch (m.kind_case()) {
    case model::MetricConfig::kBinaryAccuracy:
      return [options = MakeBinaryOptions(m.binary_accuracy()), name = named("binary_accuracy")] {
        return std::make_unique<BinaryAccuracy>(options, name);
      };
    case model::MetricConfig::kPrecision:
      return [options = MakeBinaryOptions(m.precision()), name = named("precision")] {
        return std::make_unique<Precision>(options, name);
      };
    case model::MetricConfig::kRecall:
      return [options = MakeBinaryOptions(m.recall()), name = named("recall")] {
        return std::make_unique<Recall>(options, name);
      };
    case model::MetricConfig::kAuc: {
      AucOptions options{.from_logits = m.auc().from_logits()};
      if (m.auc().has_num_thresholds()) options.num_thresholds = m.auc().num_thresholds();
      return [options, name = named("auc")] { return std::make_unique<Auc>(options, name); };
    }
    case model::MetricConfig::kSparseCategoricalAccuracy:
    case model::MetricConfig::KIND_NOT_SET:
      break;
  }
  return [name = named("sparse_categorical_accuracy")] { return std::make_unique<SparseCategoricalAccuracy>(name); };
}

// The pipeline of the spec file at `path`; this rank's shard of its
// elements in a data-parallel run.
Result<DatasetPtr> ReadPipeline(const std::string& path, const Collectives* collectives) {
  SLUICE_ASSIGN_OR_RETURN(spec::Pipeline pipeline, ReadSpecFile(path));
  SLUICE_ASSIGN_OR_RETURN(DatasetPtr dataset, DatasetFromSpec(pipeline));
  if (collectives == nullptr || collectives->size() == 1) return dataset;
  return MakeShardDataset(std::move(dataset), {.num_shards = collectives->size(), .index = collectives->rank()});
}

// The job's model with fresh weights from its seed.
Result<std::unique_ptr<Model>> MakeModel(const model::TrainingJob& job) {
  const model::InputSignature& input = job.model().input();
  SLUICE_ASSIGN_OR_RETURN(DType dtype, ParseDType(input.dtype()));
  SLUICE_ASSIGN_OR_RETURN(Shape shape, Shape::FromDims(std::vector<int64_t>(input.shape().begin(), input.shape().end())));
  std::vector<std::unique_ptr<Layer>> layers;
  for (const model::LayerConfig& config : job.model().layers()) {
    SLUICE_ASSIGN_OR_RETURN(layers.emplace_back(), LayerFromConfig(config));
  }
  return Model::Sequential({input.name(), dtype, shape}, std::move(layers), job.seed());
}

// Restores the newest checkpoint of `manager` into `trainer` when resuming;
// refuses a directory holding checkpoints otherwise.
Status PrepareCheckpoints(const CheckpointManager& manager, bool resume, Trainer& trainer, std::ostream* progress) {
  SLUICE_ASSIGN_OR_RETURN(std::optional<CheckpointInfo> latest, manager.Latest());
  if (!resume) {
    if (!latest) return OkStatus();
    return FailedPreconditionError("train: the checkpoint directory '", manager.directory(),
                                   "' already holds checkpoints (newest: ", latest->path,
                                   "); resume from them (--resume) or give an empty directory");
  }
  if (!latest) {
    if (progress != nullptr) *progress << "No checkpoint in " << manager.directory() << ": training from the start\n";
    return OkStatus();
  }
  SLUICE_ASSIGN_OR_RETURN(CheckpointContents contents, manager.RestoreLatest());
  SLUICE_RETURN_IF_ERROR(RestoreTrainingState(trainer, contents));
  if (progress != nullptr) {
    *progress << "Resumed from " << latest->path << " (" << trainer.epochs_done() << " epochs done)\n";
  }
  return OkStatus();
}

}  // namespace

Result<model::TrainingJob> ReadTrainingJob(const std::string& path) {
  SLUICE_ASSIGN_OR_RETURN(const std::string text,
                          ReadTextFile(path, {.what = "training job", .max_bytes = kMaxJobBytes,
                                              .limit_name = "kMaxJobBytes"}));
  model::TrainingJob job;
  SLUICE_RETURN_IF_ERROR(ParseTextProto(text, "training job", StrCat(path, ":"), kMaxJobMessageDepth, &job));
  SLUICE_RETURN_IF_ERROR(CheckJob(JobErrors(path), job));
  const fs::path folder = fs::path(path).parent_path();
  const auto resolve = [&](std::string* spec_path) {
    if (!spec_path->empty() && fs::path(*spec_path).is_relative()) *spec_path = (folder / *spec_path).string();
  };
  resolve(job.mutable_input()->mutable_train());
  resolve(job.mutable_input()->mutable_validation());
  if (job.has_export_preprocessing()) resolve(job.mutable_export_preprocessing()->mutable_functions());
  return job;
}

Result<JobResult> RunTrainingJob(const model::TrainingJob& job, const JobRunOptions& options) {
  SLUICE_RETURN_IF_ERROR(CheckJob(JobErrors("(in memory)"), job));
  if (!job.export_directory().empty()) {
    std::error_code error;
    if (fs::exists(job.export_directory(), error)) {
      return FailedPreconditionError("train: the export directory '", job.export_directory(),
                                     "' already exists; give a new one (the job exports when it ends)");
    }
  }
  SLUICE_ASSIGN_OR_RETURN(std::unique_ptr<Model> model, MakeModel(job));
  // The export's preprocessing is checked against the model before the
  // pipelines are built and trained on, not after.
  SLUICE_ASSIGN_OR_RETURN(std::optional<Preprocessing> preprocessing, JobExportPreprocessing(job));
  if (preprocessing.has_value()) {
    Result<BoundPreprocessing> bound = BindPreprocessing(*preprocessing, model->inputs());
    if (!bound.ok()) return bound.status().WithContext("train: export_preprocessing");
  }
  SLUICE_ASSIGN_OR_RETURN(DatasetPtr train, ReadPipeline(job.input().train(), options.collectives));
  DatasetPtr validation;
  if (!job.input().validation().empty()) {
    SLUICE_ASSIGN_OR_RETURN(validation, ReadPipeline(job.input().validation(), options.collectives));
  }

  const std::unique_ptr<Loss> loss = MakeLoss(job.loss());
  const std::unique_ptr<Optimizer> optimizer = MakeOptimizer(job.optimizer());
  TrainerOptions trainer_options;
  if (!job.input().label().empty()) trainer_options.label_component = job.input().label();
  for (const model::MetricConfig& metric : job.metrics()) trainer_options.metrics.push_back(MakeMetricFactory(metric));
  trainer_options.collectives = options.collectives;
  Trainer trainer(*model, *loss, *optimizer, std::move(trainer_options));
  // What the job writes once, rank 0 writes.
  std::ostream* const progress = trainer.is_chief() ? options.progress : nullptr;

  FitOptions fit{.epochs = job.epochs() == 0 ? 1 : job.epochs(),
                 .steps_per_epoch = job.steps_per_epoch() == 0 ? -1 : job.steps_per_epoch(),
                 .validation = validation,
                 .progress = progress};
  std::optional<CheckpointManager> checkpoints;
  std::optional<ModelCheckpoint> save_checkpoints;
  if (!job.checkpoint().directory().empty()) {
    checkpoints.emplace(job.checkpoint().directory(),
                        job.checkpoint().max_to_keep() == 0 ? kDefaultMaxToKeep : job.checkpoint().max_to_keep());
    SLUICE_RETURN_IF_ERROR(PrepareCheckpoints(*checkpoints, options.resume, trainer, progress));
    save_checkpoints.emplace(*checkpoints, std::max(1, job.checkpoint().every_epochs()));
    fit.callbacks.push_back(&*save_checkpoints);
  } else if (options.resume) {
    return InvalidArgumentError("train: --resume needs the job's checkpoint.directory");
  }
  fit.initial_epoch = trainer.epochs_done();
  std::unique_ptr<SummaryWriter> summaries;
  if (!job.tensorboard_directory().empty() && trainer.is_chief()) {
    SLUICE_ASSIGN_OR_RETURN(summaries, SummaryWriter::Open(job.tensorboard_directory()));
    fit.summaries = summaries.get();
  }

  JobResult result;
  if (fit.initial_epoch < fit.epochs) {
    SLUICE_ASSIGN_OR_RETURN(result.history, trainer.Fit(train, fit));
  } else if (progress != nullptr) {
    *progress << "All " << fit.epochs << " epochs are done already\n";
  }
  result.epochs_done = trainer.epochs_done();
  if (!job.export_directory().empty() && trainer.is_chief()) {
    SLUICE_RETURN_IF_ERROR(ExportModel(*model, job.export_directory(), {.preprocessing = std::move(preprocessing)}));
    result.export_directory = job.export_directory();
    if (progress != nullptr) *progress << "Exported to " << result.export_directory << "\n";
  }
  return result;
}

}  // namespace sluice
