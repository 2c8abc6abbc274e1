// Checkpoint files: one file holding a training run's state, so that a run
// can stop and continue exactly. It holds named tensors (model variables,
// optimizer slots; any DType, string included, restored bit for bit), named
// int64 scalars (step, epoch) and named byte strings (the input iterator's
// serialized position, RNG state).
//
// Format, all integers little-endian:
//   [0, 8)        magic "SLUICKPT"
//   [8, 12)       u32 format version (kCheckpointFormatVersion)
//   [12, 20)      u64 payload size N
//   [20, 24)      u32 masked CRC32C (tfrecord/crc32c.h) of bytes [0, 20)
//                 followed by the payload
//   [24, 24 + N)  payload: a serialized sluice.checkpoint.Checkpoint
//                 (model/checkpoint.proto), entries sorted by name
// and nothing after. A file with another magic, size or checksum is DataLoss
// naming the file and what failed; a whole file of a newer version is
// Unimplemented. Protobuf limits the payload to 2 GiB.
//
// Writing is atomic: the bytes go to "<path>.tmp-<pid>-<n>", which is
// fsynced and then renamed over `path` (and the directory fsynced), so a
// reader sees the old file or the new one, never a part; a crash can leave
// the temporary file behind.
// Thread safety: the functions may be called concurrently (writers to one
// path leave one of their files whole).
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "sluice/core/status.h"
#include "sluice/core/tensor.h"

namespace sluice {

inline constexpr uint32_t kCheckpointFormatVersion = 1;

struct CheckpointContents {
  std::map<std::string, Tensor> tensors;  // CPU tensors
  std::map<std::string, int64_t> scalars;
  std::map<std::string, std::string> blobs;  // byte strings
};

// InvalidArgument for an invalid or non-CPU tensor; errors name `path`.
Status WriteCheckpointFile(const std::string& path, const CheckpointContents& contents);

// NotFound for a missing file, DataLoss for a damaged one (see above).
Result<CheckpointContents> ReadCheckpointFile(const std::string& path);

}  // namespace sluice
