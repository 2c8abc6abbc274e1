// Training jobs as data: a model/job.proto text file names the input
// pipelines (pipeline spec files), the model, loss, optimizer and schedule,
// metrics, how long to train, and where checkpoints, the export and
// TensorBoard events go. `sluice train JOB.pbtxt` runs one; so can a program:
//
//   SLUICE_ASSIGN_OR_RETURN(model::TrainingJob job, ReadTrainingJob("examples/jobs/demo.pbtxt"));
//   SLUICE_ASSIGN_OR_RETURN(JobResult result, RunTrainingJob(job, {.progress = &std::cout}));
//
// Paths: the pipeline spec files are relative to the job file's folder
// (ReadTrainingJob resolves them); what the job reads and writes beyond
// them (the data a spec names, the checkpoint, export and TensorBoard
// directories) is relative to the working directory.
//
// With a checkpoint directory, a checkpoint is saved every
// checkpoint.every_epochs epochs (model/training_checkpoint.h: variables,
// optimizer slots, epochs done). A run with `resume` continues from the
// newest one; a run without it refuses a directory that already holds
// checkpoints, so that one job's checkpoints are never mixed with another's.
//
// Data-parallel (JobRunOptions::collectives, N ranks): every rank runs the
// same job, reading shard(N, rank) of the train and validation pipelines'
// elements (the batches the specs make), so the spec's batch size is the
// per-rank batch and the global batch is N times it. Every rank must see
// the pipeline's elements in the same order, so whatever draws at random
// in a spec (shuffle, list_files' shuffle, sample_from_datasets) needs a
// seed, or the ranks' shards overlap. Only rank 0 prints, writes TensorBoard
// events, checkpoints (holding every rank's input position) and the export;
// the checkpoint directory must be one that every rank reads (a resumed job
// restores it on every rank).
// Thread safety: one thread runs a job.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "sluice/core/status.h"
#include "sluice/executor/collectives.h"
#include "sluice/model/job.pb.h"
#include "sluice/model/trainer.h"

namespace sluice {

// Job files larger than this are refused before they are parsed.
inline constexpr size_t kMaxJobBytes = size_t{1} << 20;
// The most epochs a job may ask for.
inline constexpr int32_t kMaxJobEpochs = 1'000'000;

// Parses the job file at `path` and checks it (InvalidArgument naming the
// file and field); its pipeline spec paths come back resolved against the
// file's folder.
Result<model::TrainingJob> ReadTrainingJob(const std::string& path);

struct JobRunOptions {
  bool resume = false;               // continue from the newest checkpoint
  std::ostream* progress = nullptr;  // the epoch lines; null for silence
  // The ranks of a data-parallel run, not owned; null for one process.
  Collectives* collectives = nullptr;
};

struct JobResult {
  std::vector<EpochLogs> history;  // the epochs this run trained
  int epochs_done = 0;             // including those a resumed run restored
  std::string export_directory;    // empty without an export
};

// Runs `job` (as ReadTrainingJob returns it).
Result<JobResult> RunTrainingJob(const model::TrainingJob& job, const JobRunOptions& options);

}  // namespace sluice
