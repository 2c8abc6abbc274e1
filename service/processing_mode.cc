#include "sluice/service/processing_mode.h"

namespace sluice::service {

std::string_view ProcessingModeName(ProcessingMode mode) {
  switch (mode) {
    case ProcessingMode::kParallelEpochs: return "parallel_epochs";
    case ProcessingMode::kDistributedEpoch: return "distributed_epoch";
    case ProcessingMode::kStaticSharding: return "static_sharding";
  }
  return "unknown";
}

Result<ProcessingMode> ParseProcessingMode(std::string_view name) {
  for (ProcessingMode mode : {ProcessingMode::kParallelEpochs, ProcessingMode::kDistributedEpoch,
                              ProcessingMode::kStaticSharding}) {
    if (name == ProcessingModeName(mode)) return mode;
  }
  return InvalidArgumentError("unknown processing mode '", name,
                              "' (expected parallel_epochs, distributed_epoch or static_sharding)");
}

}  // namespace sluice::service
