// save: writes every element of a dataset as a snapshot directory
// (docs/snapshot-format.md) that load() reads back in the same order
// (tf.data's Dataset.save). It runs the input to its end on the calling
// thread; the manifest is written last, atomically, so the directory is a
// snapshot only once the whole input is in it.
//
// An existing manifest in the directory is removed first (a save that
// stops early then leaves none), and shard files of an earlier save that
// this one doesn't write are removed at the end. The manifest records the
// input's fingerprint and spec when it has one (dataset/spec_fingerprint.h).
// An error from the input ends the save with that error (no manifest); an
// infinite input is refused.
//
// With a shard_func (tf.data's shard_func) each element goes to the shard
// the function returns for it, and load gives back shard 0's elements in
// the order they were written, then shard 1's, and so on (the manifest's
// BY_SHARD order); a shard no element went to is empty.
#pragma once

#include <cstdint>
#include <string>

#include "sluice/dataset/dataset.h"
#include "sluice/dataset/functions.h"
#include "sluice/tfrecord/compression.h"

namespace sluice {

struct SaveOptions {
  Compression compression = Compression::kNone;
  // Files written at once; element i goes to shard i % shard_count.
  // 1 to kMaxSnapshotShards (dataset/snapshot_format.h).
  int64_t shard_count = 1;
  // When set, the shard of each element: a function (a built-in, an
  // expression, a named or a C++ one) returning one int64 scalar, 0 to
  // kMaxSnapshotShards - 1; another value is an InvalidArgument error naming
  // the element and the value, which ends the save. The shards are one past
  // the largest index returned (at least one); shard_count must be 1.
  ElementFunctionPtr shard_func;
};

// The number of elements written.
Result<int64_t> SaveDataset(const Dataset& dataset, const std::string& path, SaveOptions options = {});

}  // namespace sluice
