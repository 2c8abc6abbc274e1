// Trainer: Keras' compile + fit + evaluate for a Model. It pulls batches from
// a dataset, splits each into the model's inputs (components named like the
// model's inputs) and the label component, runs the forward pass on a
// GradientTape, applies the optimizer, and keeps the loss and metrics.
//
//   Trainer trainer(*model, loss, optimizer, {.metrics = {...}});
//   auto history = trainer.Fit(train, {.epochs = 5, .validation = validation});
//
// Each epoch prints one progress line (loss, metrics, validation, samples/s,
// and the share of time spent waiting for input) and writes the same scalars
// to TensorBoard when a SummaryWriter is given. An infinite training dataset
// needs steps_per_epoch (InvalidArgument otherwise); with steps_per_epoch the
// training iterator carries over between epochs, otherwise each epoch is one
// pass. Callbacks see every epoch's logs and may stop training.
//
// Data-parallel training: with TrainerOptions::collectives, this process is
// one rank of a job, and every rank runs the same Fit on its own shard of
// the input (the caller shards it, e.g. shard(size, rank)). Fit broadcasts
// rank 0's variables first; each step averages the gradients over the ranks
// in buckets that start while the backward pass is still running
// (executor/gradient_buckets.h), so every rank applies the same update: the
// loss is the mean over the global batch (per-rank batch x ranks) when the
// ranks' batches are of one size. The epoch's loss and metrics are the
// ranks' values averaged by their sample counts (exact for the loss and the
// accuracies); samples/s counts every rank's samples; only rank 0 prints
// the progress line and writes TensorBoard scalars. An epoch that is one
// pass ends on every rank when one rank's shard ends (the others read
// theirs to the end without training on it). Evaluate, Fit and the
// callbacks are then collective: every rank calls them alike.
// Thread safety: one thread drives a trainer.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "sluice/dataset/dataset.h"
#include "sluice/dataset/profile.h"
#include "sluice/executor/collectives.h"
#include "sluice/executor/gradient_buckets.h"
#include "sluice/model/losses.h"
#include "sluice/model/metrics.h"
#include "sluice/model/model.h"
#include "sluice/model/optimizer.h"
#include "sluice/model/summary_writer.h"

namespace sluice {

using MetricFactory = std::function<std::unique_ptr<PredictionMetric>()>;

struct TrainerOptions {
  // Made once for training and once for validation.
  std::vector<MetricFactory> metrics;
  // The component holding the labels; the others are matched to the model's
  // inputs by name.
  std::string label_component = "label";
  // The ranks of a data-parallel job, not owned (null: one process). It
  // outlives the trainer.
  Collectives* collectives = nullptr;
  // The gradient buckets of data-parallel steps.
  GradientBucketsOptions buckets;
};

// What one epoch measured: "loss", metric names, and "val_" + each for
// validation.
struct EpochLogs {
  int epoch = 0;  // from 1
  int64_t steps = 0;
  int64_t samples = 0;  // over every rank
  std::map<std::string, double> values;
  double samples_per_second = 0;
  double input_wait_share = 0;  // of the epoch's wall time, in [0, 1]
  std::string ToString() const;  // the progress line
};

class Trainer;

// Hooks into Fit, like keras.callbacks.Callback.
class Callback {
 public:
  virtual ~Callback() = default;
  // After each epoch (validation included). Set *stop to end training.
  virtual Status OnEpochEnd(Trainer& trainer, const EpochLogs& logs, bool* stop) = 0;
};

// Stops when `monitor` has not improved by min_delta for `patience` epochs.
class EarlyStopping final : public Callback {
 public:
  struct Options {
    std::string monitor = "val_loss";
    int patience = 0;
    double min_delta = 0;
    bool maximize = false;  // true for accuracies
  };
  explicit EarlyStopping(Options options) : options_(std::move(options)) {}
  Status OnEpochEnd(Trainer& trainer, const EpochLogs& logs, bool* stop) override;

 private:
  const Options options_;
  double best_ = 0;
  bool has_best_ = false;
  int epochs_without_improvement_ = 0;
};

struct FitOptions {
  int epochs = 1;
  // Epochs already done (as Keras' initial_epoch): training runs epochs
  // initial_epoch + 1 .. epochs. Set it from epochs_done() after restoring a
  // checkpoint (model/training_checkpoint.h).
  int initial_epoch = 0;
  int64_t steps_per_epoch = -1;  // -1: one pass over the dataset per epoch
  DatasetPtr validation;         // optional, evaluated after each epoch
  std::vector<Callback*> callbacks;
  std::ostream* progress = nullptr;  // one line per epoch; null for silence
  SummaryWriter* summaries = nullptr;  // optional TensorBoard scalars
  // Optional: profiles the training input pipeline (dataset/profile.h) and
  // records each step's input wait, so AnalyzeProfile can say whether the
  // job is input-bound and which stage limits it.
  std::shared_ptr<Profile> profile;
};

class Trainer {
 public:
  Trainer(Model& model, const Loss& loss, Optimizer& optimizer, TrainerOptions options = {});

  // Trains; returns every epoch's logs.
  Result<std::vector<EpochLogs>> Fit(const DatasetPtr& train, const FitOptions& options);
  // The loss and metrics over one pass of `dataset` (inference mode).
  Result<EpochLogs> Evaluate(const DatasetPtr& dataset);
  // One optimisation step on one batch; returns its loss.
  Result<double> TrainStep(const Element& batch, const ElementSpec& spec);

  Model& model() { return model_; }
  Optimizer& optimizer() { return optimizer_; }
  // The job's ranks; null for one process.
  Collectives* collectives() const { return options_.collectives; }
  // Whether this process writes what a job writes once (progress,
  // TensorBoard, checkpoints, exports): rank 0, or the only process.
  bool is_chief() const { return options_.collectives == nullptr || options_.collectives->rank() == 0; }
  // How long data-parallel steps waited for gradient all-reduces after the
  // backward pass (the communication it did not hide), since construction.
  std::chrono::steady_clock::duration all_reduce_wait() const {
    return buckets_ ? buckets_->wait_time() : std::chrono::steady_clock::duration{};
  }
  // The iterator Fit is reading (for checkpoints); null outside Fit.
  Iterator* train_iterator() { return train_iterator_.get(); }
  // Epochs completed by Fit so far.
  int epochs_done() const { return epochs_done_; }
  void set_epochs_done(int epochs) { epochs_done_ = epochs; }
  // A saved input position (dataset/iterator_state.h) for the next Fit's
  // training iterator; empty for none.
  void set_pending_input_state(std::string state) { pending_input_state_ = std::move(state); }

 private:
  struct Batch {
    std::vector<Tensor> inputs;
    Tensor labels;
  };
  Result<Batch> Split(const Element& batch, const ElementSpec& spec) const;
  std::vector<std::unique_ptr<PredictionMetric>> MakeMetrics() const;
  Status UpdateMetrics(std::vector<std::unique_ptr<PredictionMetric>>& metrics, const Batch& batch,
                       const Tensor& predictions);
  // Rank 0's variables on every rank.
  Status BroadcastVariables();
  // `logs`' values averaged over the ranks, weighted by each rank's
  // `samples`; logs.samples the ranks' total.
  Status AverageOverRanks(EpochLogs& logs, int64_t samples);
  // Whether every rank has a batch this step (`have`: this rank's answer).
  Result<bool> EveryRankHasBatch(bool have);

  Model& model_;
  const Loss& loss_;
  Optimizer& optimizer_;
  const TrainerOptions options_;
  std::vector<Variable*> trainable_;
  std::vector<std::unique_ptr<PredictionMetric>> train_metrics_;
  Mean train_loss_{"loss"};
  std::unique_ptr<Iterator> train_iterator_;
  int epochs_done_ = 0;
  std::string pending_input_state_;
  std::unique_ptr<GradientBuckets> buckets_;  // made on the first data-parallel step
};

}  // namespace sluice
