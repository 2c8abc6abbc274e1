// Splits: the pieces of a pipeline's source that a service job hands to its
// workers, and the pipeline a worker runs for one of them.
//
// For distributed_epoch the splits of the source op (ops[0]) are, in order:
// - list_files: one split per matched file (sorted; list_files' own shuffle
//   does not apply: the order of the splits is the dispatcher's);
// - tfrecord, text_line and csv: one split per file, in the order listed;
// - range and from_slices: consecutive ranges of element positions
//   [begin, end), SplitOptions::rows_per_split each;
// - from_tensors: one split, its one element;
// - labelled_files: shards of its listing (LabelledFilesOptions::num_shards),
//   as many as a range of that many rows has splits, so that every split holds
//   every class.
// A split's pipeline is the source restricted to the split followed by the
// spec's other ops (and its pipeline seed), each split a traversal of its
// own. Batches therefore never cross split boundaries (each split ends with
// its own partial batch), and ops that need the whole sequence (take, skip,
// enumerate, shard, zip, concatenate) are refused in this mode. A `repeat`
// op is not run per split: it makes the job several epochs of the splits
// (EpochCount).
//
// For static_sharding split i of n is the whole spec with shard(n, i)
// inserted after the source (a labelled_files source takes the shard
// itself, and reads only its files); for parallel_epochs the one split is
// the whole spec.
//
// In distributed_epoch and static_sharding, element k of split s is the
// same element every time s is processed, which is what lets a re-issued
// split be deduplicated by (split id, k): every seed of the spec (a
// shuffle's, a labelled_files source's, a random function's, the pipeline
// seed) is drawn from the split and its epoch (split ids count on across
// epochs), mixed with the seed the spec gives where it gives one, and
// every parallel op runs deterministic. So each split, and each epoch of
// it, draws its own, reproducibly; a shuffle with
// reshuffle_each_iteration: false draws the same order every epoch.
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sluice/dataset/dataset.h"
#include "sluice/dataset/pipeline_spec.pb.h"
#include "sluice/service/processing_mode.h"

namespace sluice::service {

// One piece of a job's pipeline. Which fields are used follows `kind`.
struct SourceSplit {
  enum class Kind {
    kWhole,  // the whole pipeline (parallel_epochs)
    kFile,   // `file` of a list_files, tfrecord, text_line or csv source
    kRows,   // element positions [begin, end) of a range or from_slices source
    kShard,  // shard(num_shards, shard_index) of the source (static_sharding)
  };
  Kind kind = Kind::kWhole;
  std::string file;
  int64_t begin = 0;
  int64_t end = 0;
  int64_t shard_index = 0;
  int64_t num_shards = 1;

  bool operator==(const SourceSplit&) const = default;
};

struct SplitOptions {
  // Elements per split of a range or from_slices source, files per split
  // of a labelled_files source; 0 = the source's cardinality /
  // kDefaultSplitsPerSource, at least 1.
  int64_t rows_per_split = 0;
  static constexpr int64_t kDefaultSplitsPerSource = 64;
};

// The splits of `pipeline` in one epoch of `mode` (static_sharding:
// `num_shards` splits; parallel_epochs: one). InvalidArgument when the
// source cannot be split or an op refuses splitting (naming the op), or the
// source is infinite; a list_files pattern matching nothing is NotFound;
// ResourceExhausted, before any split is made, when a range or from_slices
// source would be cut into more than `max_splits`, and when a tfrecord,
// text_line or csv source lists or list_files' patterns match more files than that (the
// listing stops there: MatchFiles' max_files).
Result<std::vector<SourceSplit>> ListSplits(const spec::Pipeline& pipeline, ProcessingMode mode,
                                            int64_t num_shards = 1, SplitOptions options = {},
                                            uint64_t max_splits = UINT64_MAX);

// How many epochs of its splits a distributed_epoch job runs: the product
// of the counts of the spec's repeat ops (1 without any); -1 = forever.
int64_t EpochCount(const spec::Pipeline& pipeline);

// What a job's randomness is drawn from beside its splits, as its
// consumer chose them: `seed`, for the ops the spec gives no seed (random
// per dataset unless the consumer fixes it), and `iteration`, the count of
// the iterators of the consumer's dataset made before this job's (each
// iterator an epoch, as with a local pipeline's reshuffle_each_iteration).
struct JobSeeds {
  uint64_t seed = 0;
  uint64_t iteration = 0;
};

// The spec a worker runs for `split`, whose id in its job is `split_id`
// (see above): built with DatasetFromSpec, it yields exactly the split's
// elements, the same ones in the same order every time. In
// distributed_epoch and static_sharding jobs every seed of the spec is
// pinned: one the spec gives, mixed with the split and (unless its shuffle
// keeps its order across epochs) the split's epoch and the job's
// iteration, so that runs with the same seeds repeat their orders; one it
// does not give, from the same mixed with the job's seed. In parallel_epochs
// jobs the spec's seeds are kept in the dataset's first iteration and mixed
// with the iteration in the next ones (but for shuffles with
// reshuffle_each_iteration: false), so that each epoch read as a new
// iterator draws its own orders, the same on every worker; the seeds it does
// not give stay each worker's own, but for a shuffle with
// reshuffle_each_iteration: false, which draws its seed from the job's (the
// same in every iteration: it keeps its order from epoch to epoch; a worker
// mixes its own seed into a parallel_epochs job's, so that workers still
// differ). Trailing prefetches are left out: a worker's task buffer is its
// prefetch.
Result<spec::Pipeline> SplitPipelineSpec(const spec::Pipeline& pipeline, ProcessingMode mode,
                                         const SourceSplit& split, int64_t split_id, JobSeeds job = {});
// SplitPipelineSpec, built.
Result<DatasetPtr> MakeSplitDataset(const spec::Pipeline& pipeline, ProcessingMode mode,
                                    const SourceSplit& split, int64_t split_id, JobSeeds job = {});

// "file a.tfrecord", "rows [0, 64)", "shard 2 of 4", "whole pipeline".
std::string SplitDebugString(const SourceSplit& split);

}  // namespace sluice::service
