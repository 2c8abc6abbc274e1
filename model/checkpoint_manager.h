// CheckpointManager: saves a training run's checkpoints into one directory as
// "ckpt-<step>.sluice" files (model/checkpoint_file.h), keeps the newest
// max_to_keep of them and finds the newest to resume from.
//
// The directory listing is the index (there is no TensorFlow-style
// `checkpoint` text file to keep in step): every file named exactly
// "ckpt-<step>.sluice" is a checkpoint, ordered by step; anything else, such
// as a temporary file a crash left behind, is ignored. Steps must not go
// backwards: saving below the newest step is an error, so that Latest()
// is always the newest state of the run.
// Thread safety: one manager per directory, used by one thread at a time.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sluice/model/checkpoint_file.h"

namespace sluice {

struct CheckpointInfo {
  int64_t step = 0;
  std::string path;
  friend bool operator==(const CheckpointInfo&, const CheckpointInfo&) = default;
};

class CheckpointManager {
 public:
  // max_to_keep <= 0 keeps every checkpoint. The directory is created by the
  // first Save.
  CheckpointManager(std::string directory, int max_to_keep);

  // Writes ckpt-<step>.sluice atomically (replacing one of the same step),
  // then deletes the oldest beyond max_to_keep. Returns the new file's path.
  // REQUIRES: step >= 0. FailedPrecondition when a newer checkpoint exists.
  Result<std::string> Save(int64_t step, const CheckpointContents& contents);

  // The checkpoints in the directory, oldest (lowest step) first; empty when
  // the directory does not exist.
  Result<std::vector<CheckpointInfo>> All() const;
  // The newest checkpoint, or nullopt when there is none.
  Result<std::optional<CheckpointInfo>> Latest() const;
  // Reads the newest checkpoint: NotFound when there is none, DataLoss (naming
  // the file) when it is damaged.
  Result<CheckpointContents> RestoreLatest() const;

  const std::string& directory() const { return directory_; }

 private:
  const std::string directory_;
  const int max_to_keep_;
};

}  // namespace sluice
