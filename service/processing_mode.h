// How a service job divides its pipeline among workers (tf.data service's
// processing modes and sharding policies):
// - kParallelEpochs: every worker runs the whole pipeline; a job yields one
//   copy of the data per worker.
// - kDistributedEpoch: dynamic sharding; the dispatcher hands out the splits
//   of the source (service/split_provider.h) and each split is processed
//   once per epoch, by whichever worker asks first.
// - kStaticSharding: split i is the whole pipeline with its source sharded
//   shard(n, i), n = the job's shard count; each split is processed once.
// Thread safety: pure functions.
#pragma once

#include <string_view>

#include "sluice/core/status.h"

namespace sluice::service {

enum class ProcessingMode { kParallelEpochs, kDistributedEpoch, kStaticSharding };

// "parallel_epochs", "distributed_epoch", "static_sharding".
std::string_view ProcessingModeName(ProcessingMode mode);
// The inverse of ProcessingModeName; InvalidArgument listing the names.
Result<ProcessingMode> ParseProcessingMode(std::string_view name);

}  // namespace sluice::service
