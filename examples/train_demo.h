// The end-to-end training demo (`sluice demo`, examples/train_demo_main.cc):
// generated data written as GZIP TFRecord shards, read back through
//   list_files -> interleave(tfrecord) -> parse_example -> shuffle -> batch(32) -> prefetch
// into a Dense(16, relu) -> Dense(1) classifier trained on logits with
// Adam(1e-2), then exported, reloaded and asked for two predictions; it ends
// with the profiler's verdict on the input pipeline (dataset/profiler.h).
// Thread safety: runs on the calling thread.
#pragma once

#include <ostream>
#include <string>

#include "sluice/core/status.h"

namespace sluice {

struct TrainDemoOptions {
  std::string work_dir;  // where shards, TensorBoard events and the export go; must exist
  int epochs = 5;
  uint64_t seed = 42;
};

struct TrainDemoResult {
  double validation_accuracy = 0;
  // Probabilities for [2, 1] and [-2, -1]: in process, then from the
  // reloaded export.
  float predictions[2] = {0, 0};
  float exported_predictions[2] = {0, 0};
};

// Prints its progress to `out`.
Result<TrainDemoResult> RunTrainDemo(const TrainDemoOptions& options, std::ostream& out);

}  // namespace sluice
