// Training checkpoints: everything a run needs to continue exactly where it
// stopped, bit for bit on the CPU:
//   tensors  "model/<variable>"      every model variable
//            "optimizer/<slot>"      every optimizer slot ("hidden/kernel/m")
//   scalars  "optimizer/iterations"  the step count (drives the LR schedule
//                                    and Adam's bias correction)
//            "trainer/epochs_done"
//            "rng/<dropout layer>"   each Dropout layer's call count (its
//                                    masks are a function of seed and count)
//   blobs    "model/graph"           the model's structure: restoring into a
//                                    different model is refused, naming what
//                                    differs
//            "input/iterator"        the training iterator's position
//                                    (dataset/iterator_state.h), when saved
//                                    during Fit
//            "input/iterator/<r>"    the same for rank r of a data-parallel
//                                    job of N > 1 ranks (model/trainer.h),
//                                    with the scalar "trainer/ranks" = N
// In a data-parallel job, capturing is collective (rank 0 gathers every
// rank's position), only rank 0 saves, and a checkpoint restores only on
// as many ranks as saved it, each taking its own position.
// Files are written atomically by CheckpointManager (model/checkpoint_manager.h);
// ModelCheckpoint is the callback that saves one per epoch.
// Thread safety: call from the thread that drives the trainer.
#pragma once

#include "sluice/model/checkpoint_file.h"
#include "sluice/model/checkpoint_manager.h"
#include "sluice/model/trainer.h"

namespace sluice {

Result<CheckpointContents> CaptureTrainingState(Trainer& trainer);
// Restores into a trainer of the same model (built the same way). The input
// position, if saved, is applied to the next Fit's training iterator.
Status RestoreTrainingState(Trainer& trainer, const CheckpointContents& contents);

// Saves a checkpoint after every `every_epochs` epochs through `manager`
// (on rank 0 of a data-parallel job; the other ranks give their positions).
class ModelCheckpoint final : public Callback {
 public:
  ModelCheckpoint(CheckpointManager& manager, int every_epochs = 1)
      : manager_(manager), every_epochs_(every_epochs) {}
  Status OnEpochEnd(Trainer& trainer, const EpochLogs& logs, bool* stop) override;

 private:
  CheckpointManager& manager_;
  const int every_epochs_;
};

}  // namespace sluice
