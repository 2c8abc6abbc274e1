// load: the elements of a snapshot directory that save() or snapshot()
// wrote (docs/snapshot-format.md), in the order they were written
// (tf.data's Dataset.load). The manifest is read when the op is built, so
// the element spec and cardinality are known then: a directory without a
// manifest (never a snapshot, or a run stopped before the end) is NotFound,
// a damaged one DataLoss naming the file. Segments are read as
// dataset/snapshot_reader.h describes: damage is a DataLoss error for that
// element naming the file and byte offset, sizes in records are bounded by
// max_record_bytes and charged to the RAM budget before allocation.
// A saved iterator holds its position in each shard; a restore reopens the
// segments and seeks (a compressed one is decompressed up to the offset).
#pragma once

#include <optional>
#include <string>

#include "sluice/dataset/dataset.h"

namespace sluice {

struct LoadOptions {
  std::string path;  // the snapshot directory
  // When given, must equal the snapshot's (InvalidArgument otherwise).
  std::optional<ElementSpec> element_spec;
  // The largest record accepted, bytes: 1 to 16 GiB, default 256 MiB.
  int64_t max_record_bytes = int64_t{256} << 20;
};

Result<DatasetPtr> MakeLoadDataset(LoadOptions options);

// The load node of a pipeline spec (dataset/op_spec.h).
Result<DatasetPtr> LoadDatasetFromSpec(const spec::DatasetNode& node, const OpSpecContext& context);

}  // namespace sluice
