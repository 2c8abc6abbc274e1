// list_files: the file names matching glob patterns, one scalar string per
// file (tf.data's list_files). The patterns are expanded when the dataset is
// built; no match at all is a NotFound error then. Names are sorted, then,
// with `shuffle` (the default, as in tf.data), shuffled on every iteration:
// with a seed the same sequence of orders on every run, without one a new
// sequence per process.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sluice/dataset/dataset.h"

namespace sluice {

struct ListFilesOptions {
  std::vector<std::string> patterns;  // glob(7) patterns, at least one
  bool shuffle = true;
  std::optional<uint64_t> seed;
};

Result<DatasetPtr> MakeListFilesDataset(ListFilesOptions options);

// The list_files node of a pipeline spec (dataset/op_spec.h).
Result<DatasetPtr> ListFilesDatasetFromSpec(const spec::DatasetNode& node, const OpSpecContext& context);

// The sorted, distinct files matching any of `patterns`; NotFound if none.
// A directory a pattern needs that cannot be read is an error naming the
// pattern, the directory and the OS's reason (NotFound when it does not
// exist). With max_files (a data service's split cap), the listing stops as
// soon as more directory entries than that match the patterns' last
// components (counted per pattern, duplicates included), so memory and time
// stay bounded: ResourceExhausted naming the cap.
Result<std::vector<std::string>> MatchFiles(const std::vector<std::string>& patterns,
                                            uint64_t max_files = UINT64_MAX);

}  // namespace sluice
