// Durable files: making what was written survive a crash (fsync), and
// replacing a file atomically, so that a reader sees the old file or the
// new one, never a part. Checkpoints (model/checkpoint_file.h), the
// dispatcher's journal snapshots (service/journal.h) and dataset snapshot
// manifests (dataset/snapshot_format.h) are written this way.
// Thread safety: the functions may be called concurrently.
#pragma once

#include <string>
#include <string_view>

#include "sluice/core/status.h"

namespace sluice {

// fsync(2) of a file, or of a directory so that an entry made or renamed in
// it survives a crash. Internal, naming the path and the system's reason.
Status SyncPath(const std::string& path);

// Renames `from` over `to`, then fsyncs `to`'s directory. REQUIRES: `from`
// is already synced (SyncPath) when the rename must not expose a part.
Status RenameDurably(const std::string& from, const std::string& to);

// Writes `bytes` as `path` atomically: into "<path>.tmp-<pid>-<n>", fsynced,
// then renamed over `path` and the directory fsynced. On an error the
// temporary file is removed; a crash can leave it behind. NotFound when
// the directory does not exist, Internal for other failures.
Status WriteFileAtomically(const std::string& path, std::string_view bytes);

}  // namespace sluice
