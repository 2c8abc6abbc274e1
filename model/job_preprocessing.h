// The preprocessing a training job's export carries (model/job.proto
// ExportPreprocessingConfig): the raw inputs, and the element functions of
// the training pipeline's first `train_maps` top-level map ops (other ops
// between them, such as shuffle, are passed over) or of the map ops of a
// spec file of maps only (`functions`). `sluice train` then exports the
// model with them (model/export.h), so `sluice predict BUNDLE FILE...`
// applies the training pipeline's per-element work to raw inputs.
// Thread safety: a pure function of the job and the files it names.
#pragma once

#include <optional>

#include "sluice/model/job.pb.h"
#include "sluice/model/preprocessing.h"

namespace sluice {

// nullopt when the job has no export_preprocessing. InvalidArgument
// ("train: export_preprocessing...") naming the raw input, the spec file and
// op, when a raw input is malformed, the file holds an op other than a map
// (`functions`), the train pipeline has fewer maps than `train_maps`, or a
// function cannot be built; the spec file's own read and parse errors.
// REQUIRES: the job passed ReadTrainingJob's checks (paths resolved).
Result<std::optional<Preprocessing>> JobExportPreprocessing(const model::TrainingJob& job);

}  // namespace sluice
