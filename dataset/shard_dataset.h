// shard: keeps the elements at positions p with p % num_shards == index.
// Still reads the others: shard early (on file names) when you can.
#pragma once

#include "sluice/dataset/dataset.h"

namespace sluice {

struct ShardOptions {
  int64_t num_shards = 1;  // > 0
  int64_t index = 0;       // in [0, num_shards)
};

Result<DatasetPtr> MakeShardDataset(DatasetPtr input, ShardOptions options);

// The shard node of a pipeline spec (dataset/op_spec.h).
Result<DatasetPtr> ShardDatasetFromSpec(const spec::DatasetNode& node, const OpSpecContext& context);

}  // namespace sluice
