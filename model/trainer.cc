#include "sluice/model/trainer.h"

#include <chrono>
#include <cmath>
#include <cstdio>

#include "sluice/dataset/iterator_state.h"
#include "sluice/executor/gradient_tape.h"

namespace sluice {
namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

// The training iterator, profiled when the options ask for it.
std::unique_ptr<Iterator> MakeTrainIterator(const Dataset& train, const FitOptions& options) {
  if (!options.profile) return train.MakeIterator();
  IteratorContext context;
  context.profile = options.profile;
  return train.MakeIterator(std::move(context));
}

// The rows of a batch (its first component's first dimension; 1 for a
// batch of scalars).
int64_t BatchRows(const Element& batch) { return batch.size() > 0 && batch[0].rank() > 0 ? batch[0].dim(0) : 1; }

}  // namespace

std::string EpochLogs::ToString() const {
  std::string line = StrCat("epoch ", epoch, ": ", steps, " steps");
  for (const auto& [name, value] : values) {
    char text[64];
    std::snprintf(text, sizeof(text), " - %s %.4f", name.c_str(), value);
    line += text;
  }
  char tail[96];
  std::snprintf(tail, sizeof(tail), " - %.0f samples/s - input wait %.1f%%", samples_per_second,
                100 * input_wait_share);
  return line + tail;
}

Status EarlyStopping::OnEpochEnd(Trainer&, const EpochLogs& logs, bool* stop) {
  auto found = logs.values.find(options_.monitor);
  if (found == logs.values.end()) {
    return InvalidArgumentError("EarlyStopping: no value named '", options_.monitor, "' in the epoch's logs");
  }
  const double value = options_.maximize ? -found->second : found->second;
  if (!has_best_ || value < best_ - options_.min_delta) {
    best_ = value;
    has_best_ = true;
    epochs_without_improvement_ = 0;
  } else if (++epochs_without_improvement_ > options_.patience) {
    *stop = true;
  }
  return OkStatus();
}

Trainer::Trainer(Model& model, const Loss& loss, Optimizer& optimizer, TrainerOptions options)
    : model_(model), loss_(loss), optimizer_(optimizer), options_(std::move(options)),
      trainable_(model.trainable_variables()), train_metrics_(MakeMetrics()) {}

std::vector<std::unique_ptr<PredictionMetric>> Trainer::MakeMetrics() const {
  std::vector<std::unique_ptr<PredictionMetric>> metrics;
  for (const MetricFactory& make : options_.metrics) metrics.push_back(make());
  return metrics;
}

Result<Trainer::Batch> Trainer::Split(const Element& batch, const ElementSpec& spec) const {
  Batch split;
  for (const InputSignature& input : model_.inputs()) {
    Result<size_t> index = spec.IndexOf(input.name);
    if (!index.ok()) {
      return InvalidArgumentError("the dataset has no component named '", input.name,
                                  "' for the model input of that name; its components are ", spec.ToString());
    }
    split.inputs.push_back(batch[*index]);
  }
  Result<size_t> label = spec.IndexOf(options_.label_component);
  if (!label.ok()) {
    return InvalidArgumentError("the dataset has no label component '", options_.label_component,
                                "'; its components are ", spec.ToString());
  }
  split.labels = batch[*label];
  return split;
}

Status Trainer::UpdateMetrics(std::vector<std::unique_ptr<PredictionMetric>>& metrics, const Batch& batch,
                              const Tensor& predictions) {
  for (auto& metric : metrics) SLUICE_RETURN_IF_ERROR(metric->Update(batch.labels, predictions));
  return OkStatus();
}

Result<double> Trainer::TrainStep(const Element& element, const ElementSpec& spec) {
  SLUICE_ASSIGN_OR_RETURN(Batch batch, Split(element, spec));
  GradientReady on_ready;
  if (options_.collectives != nullptr) {
    if (!buckets_) buckets_ = std::make_unique<GradientBuckets>(trainable_, *options_.collectives, options_.buckets);
    buckets_->BeginStep();
    on_ready = [this](size_t i, const Tensor& gradient) { return buckets_->OnGradientReady(i, gradient); };
  }
  Tensor predictions, loss;
  std::vector<Tensor> gradients;
  {
    GradientTape tape;
    for (Variable* variable : trainable_) tape.Watch(*variable);
    SLUICE_ASSIGN_OR_RETURN(predictions, model_.CallSingle(batch.inputs, /*training=*/true));
    SLUICE_ASSIGN_OR_RETURN(loss, loss_(batch.labels, predictions));
    SLUICE_RETURN_IF_ERROR(CheckFinite(loss, StrCat("the loss at step ", optimizer_.iterations() + 1)));
    SLUICE_ASSIGN_OR_RETURN(gradients, tape.Gradient(loss, trainable_, UnconnectedGradients::kError, on_ready));
  }
  if (buckets_) {
    SLUICE_ASSIGN_OR_RETURN(gradients, buckets_->Finish());
  }
  SLUICE_RETURN_IF_ERROR(optimizer_.Apply(trainable_, gradients));
  SLUICE_RETURN_IF_ERROR(train_loss_.Update(loss));
  SLUICE_RETURN_IF_ERROR(UpdateMetrics(train_metrics_, batch, predictions));
  return loss.dtype() == DType::kFloat64 ? loss.scalar<double>() : loss.scalar<float>();
}

Result<std::vector<EpochLogs>> Trainer::Fit(const DatasetPtr& train, const FitOptions& options) {
  if (options.epochs < 1) return InvalidArgumentError("fit: epochs must be >= 1, got ", options.epochs);
  if (options.initial_epoch < 0 || options.initial_epoch >= options.epochs) {
    return InvalidArgumentError("fit: initial_epoch must be in [0, epochs), got ", options.initial_epoch, " for ",
                                options.epochs, " epochs");
  }
  if (options.steps_per_epoch < 0 && train->cardinality() == kInfiniteCardinality) {
    return InvalidArgumentError(
        "fit: the training dataset is infinite (it repeats forever), so steps_per_epoch is required to say "
        "where an epoch ends");
  }
  if (options.steps_per_epoch == 0 || options.steps_per_epoch < -1) {
    return InvalidArgumentError("fit: steps_per_epoch must be > 0 or -1, got ", options.steps_per_epoch);
  }
  const ElementSpec& spec = train->element_spec();
  if (options_.collectives != nullptr) SLUICE_RETURN_IF_ERROR(BroadcastVariables());
  // A pass ends on every rank at once (see the header).
  const bool agree_on_end = options_.collectives != nullptr && options.steps_per_epoch < 0;
  std::vector<EpochLogs> history;
  for (int epoch = options.initial_epoch + 1; epoch <= options.epochs; ++epoch) {
    train_loss_.Reset();
    for (auto& metric : train_metrics_) metric->Reset();
    // A position saved at the end of a pass restores to an exhausted
    // iterator (which still advances the shuffles' epoch counters); the
    // epoch then starts a fresh pass.
    bool restored_at_start = false;
    if (!train_iterator_ || options.steps_per_epoch < 0) {
      train_iterator_ = MakeTrainIterator(*train, options);
      if (!pending_input_state_.empty()) {
        SLUICE_RETURN_IF_ERROR(RestoreIteratorState(*train_iterator_, pending_input_state_));
        pending_input_state_.clear();
        restored_at_start = true;
      }
    }
    EpochLogs logs{.epoch = epoch};
    Clock::duration waiting{};
    int64_t samples = 0;
    const Clock::time_point start = Clock::now();
    while (options.steps_per_epoch < 0 || logs.steps < options.steps_per_epoch) {
      const Clock::time_point before = Clock::now();
      Result<std::optional<Element>> next = train_iterator_->GetNext();
      const Clock::time_point after_input = Clock::now();
      waiting += after_input - before;
      if (!next.ok()) return next.status().WithContext(StrCat("fit: epoch ", epoch, ", step ", logs.steps + 1));
      if (!next->has_value() && restored_at_start && logs.steps == 0) {
        train_iterator_ = MakeTrainIterator(*train, options);
        restored_at_start = false;
        continue;
      }
      if (agree_on_end) {
        SLUICE_ASSIGN_OR_RETURN(const bool every_rank, EveryRankHasBatch(next->has_value()));
        if (!every_rank && next->has_value()) {
          // Reads this rank's shard to the end, so that its position is the
          // pass's end, as the other ranks' are.
          for (;;) {
            SLUICE_ASSIGN_OR_RETURN(std::optional<Element> rest, train_iterator_->GetNext());
            if (!rest) break;
          }
          break;
        }
      }
      if (!next->has_value()) {
        if (options.steps_per_epoch > 0) {
          return OutOfRangeError("fit: the training dataset ended after ", logs.steps, " steps of epoch ", epoch,
                                 " but steps_per_epoch is ", options.steps_per_epoch,
                                 "; repeat() it or lower steps_per_epoch");
        }
        break;
      }
      const Element& batch = **next;
      Result<double> loss = TrainStep(batch, spec);
      if (!loss.ok()) return loss.status().WithContext(StrCat("fit: epoch ", epoch, ", step ", logs.steps + 1));
      if (options.profile) options.profile->RecordConsumerStep(after_input - before, Clock::now() - before);
      samples += BatchRows(batch);
      ++logs.steps;
    }
    if (logs.steps == 0) return InvalidArgumentError("fit: the training dataset is empty");
    const double seconds = Seconds(Clock::now() - start);
    logs.values["loss"] = train_loss_.Result();
    for (auto& metric : train_metrics_) logs.values[std::string(metric->name())] = metric->Result();
    SLUICE_RETURN_IF_ERROR(AverageOverRanks(logs, samples));
    logs.samples_per_second = seconds > 0 ? logs.samples / seconds : 0;
    logs.input_wait_share = seconds > 0 ? Seconds(waiting) / seconds : 0;
    if (options.validation) {
      SLUICE_ASSIGN_OR_RETURN(EpochLogs validation, Evaluate(options.validation));
      for (const auto& [name, value] : validation.values) logs.values["val_" + name] = value;
    }
    epochs_done_ = epoch;
    if (options.progress && is_chief()) *options.progress << logs.ToString() << std::endl;
    if (options.summaries && is_chief()) {
      for (const auto& [name, value] : logs.values) {
        SLUICE_RETURN_IF_ERROR(options.summaries->Scalar(name, value, optimizer_.iterations()));
      }
      SLUICE_RETURN_IF_ERROR(options.summaries->Flush());
    }
    history.push_back(logs);
    bool stop = false;
    for (Callback* callback : options.callbacks) SLUICE_RETURN_IF_ERROR(callback->OnEpochEnd(*this, logs, &stop));
    if (stop) break;
  }
  train_iterator_.reset();
  return history;
}

Result<EpochLogs> Trainer::Evaluate(const DatasetPtr& dataset) {
  Mean loss_mean("loss");
  std::vector<std::unique_ptr<PredictionMetric>> metrics = MakeMetrics();
  EpochLogs logs;
  int64_t samples = 0;
  const ElementSpec& spec = dataset->element_spec();
  std::unique_ptr<Iterator> iterator = dataset->MakeIterator();
  while (true) {
    SLUICE_ASSIGN_OR_RETURN(std::optional<Element> next, iterator->GetNext());
    if (!next) break;
    SLUICE_ASSIGN_OR_RETURN(Batch batch, Split(*next, spec));
    SLUICE_ASSIGN_OR_RETURN(Tensor predictions, model_.CallSingle(batch.inputs, /*training=*/false));
    SLUICE_ASSIGN_OR_RETURN(Tensor loss, loss_(batch.labels, predictions));
    SLUICE_RETURN_IF_ERROR(loss_mean.Update(loss));
    SLUICE_RETURN_IF_ERROR(UpdateMetrics(metrics, batch, predictions));
    samples += BatchRows(*next);
    ++logs.steps;
  }
  // A rank's shard may be empty; every rank's together may not.
  if (logs.steps > 0) {
    logs.values["loss"] = loss_mean.Result();
    for (auto& metric : metrics) logs.values[std::string(metric->name())] = metric->Result();
  } else if (options_.collectives != nullptr) {
    logs.values["loss"] = 0;
    for (auto& metric : metrics) logs.values[std::string(metric->name())] = 0;
  }
  SLUICE_RETURN_IF_ERROR(AverageOverRanks(logs, samples));
  if (logs.samples == 0) return InvalidArgumentError("evaluate: the dataset is empty");
  return logs;
}

Status Trainer::BroadcastVariables() {
  for (Variable* variable : model_.variables()) {
    SLUICE_RETURN_IF_ERROR(options_.collectives->Broadcast(variable->mutable_value())
                               .WithContext(StrCat("broadcasting variable '", variable->name(), "' from rank 0")));
  }
  return OkStatus();
}

Status Trainer::AverageOverRanks(EpochLogs& logs, int64_t samples) {
  logs.samples = samples;
  if (options_.collectives == nullptr) return OkStatus();
  SLUICE_ASSIGN_OR_RETURN(const std::vector<int64_t> counts, options_.collectives->AllGather(samples));
  logs.samples = 0;
  for (int64_t count : counts) logs.samples += count;
  // Every rank holds the same names (the same metrics), in the same order.
  for (auto& [name, value] : logs.values) {
    SLUICE_ASSIGN_OR_RETURN(const std::vector<double> weighted,
                            options_.collectives->AllGather(samples > 0 ? value * static_cast<double>(samples) : 0.0));
    double sum = 0;
    for (double w : weighted) sum += w;
    value = logs.samples > 0 ? sum / static_cast<double>(logs.samples) : 0;
  }
  return OkStatus();
}

Result<bool> Trainer::EveryRankHasBatch(bool have) {
  SLUICE_ASSIGN_OR_RETURN(const std::vector<int64_t> answers, options_.collectives->AllGather(int64_t{have}));
  for (int64_t answer : answers) {
    if (answer == 0) return false;
  }
  return true;
}

}  // namespace sluice
