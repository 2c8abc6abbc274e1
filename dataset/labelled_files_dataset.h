// labelled_files: the files of a classification set laid out as
// directory/<class>/.../<file>, each with its class's index, as
// torchvision's ImageFolder, Keras's image_dataset_from_directory and DALI's
// readers.file read one (ImageNet's training set comes this way).
//
// The classes are the subdirectories of `directory`, sorted by name, or
// `class_names` in their order (each must be a subdirectory). A class's
// files are the regular files under its subdirectory at any depth (links to
// files included, links to directories not followed), whose names end in
// one of `extensions` (compared without case; none: every file), names
// starting with '.' left out, sorted by path. The listing is made when the
// dataset is built; the cardinality is the file count; no file at all is
// NotFound, an unreadable directory an error naming it and the OS's reason,
// and more than kMaxLabelledFiles files ResourceExhausted.
//
// Sharding: with num_shards > 1 the dataset holds the files at positions
// shard_index, shard_index + num_shards, ... of that listing (classes in
// label order, each class's files sorted): one host's share for multi-host
// training, as torch's DistributedSampler deals indices, without reading
// the other shards' files; each shard holds every class in proportion. A
// shard may be empty when there are fewer files than shards. A data
// service's distributed_epoch and static_sharding modes split the source
// this way (service/split_provider.h).
//
// Elements: {"contents": the file's bytes, "label": int64 class index,
// "path": the file's path}. With `shuffle` (the default: files come sorted by
// class, which a shuffle buffer cannot mix) the order is a new permutation
// each traversal, seeded as shuffle's is. Files are read as their elements
// are made, `num_parallel_reads` at a time (kAutotune: tuned as a map's
// calls); a file that cannot be read, or is larger than max_file_bytes, is
// that element's error naming the path, and the traversal goes on.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sluice/dataset/dataset.h"

namespace sluice {

// The most files a labelled_files listing may hold.
inline constexpr int64_t kMaxLabelledFiles = int64_t{1} << 24;

struct LabelledFilesOptions {
  std::string directory;                 // required
  std::vector<std::string> class_names;  // empty: every subdirectory, sorted
  std::vector<std::string> extensions;   // e.g. ".jpg"; empty: every file
  bool shuffle = true;
  std::optional<uint64_t> seed;
  int64_t num_parallel_reads = kAutotune;  // >= 1, or kAutotune
  int64_t max_file_bytes = int64_t{256} << 20;
  int64_t num_shards = 1;   // >= 1
  int64_t shard_index = 0;  // in [0, num_shards)
};

Result<DatasetPtr> MakeLabelledFilesDataset(LabelledFilesOptions options);

// The labelled_files node of a pipeline spec (dataset/op_spec.h).
Result<DatasetPtr> LabelledFilesDatasetFromSpec(const spec::DatasetNode& node, const OpSpecContext& context);

}  // namespace sluice
