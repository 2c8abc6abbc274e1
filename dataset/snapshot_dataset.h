// snapshot: computes its input once and keeps the result on disk (tf.data's
// Dataset.snapshot). The snapshot of an input lives in
// "<path>/<fingerprint>/", fingerprint being 16 hex digits of the input's
// spec (dataset/spec_fingerprint.h), so a changed pipeline writes a new
// one beside the old.
//
// An iterator finds the manifest there (docs/snapshot-format.md) and reads
// the snapshot, never touching the input; or, without one, reads the input
// and writes every element it passes on into a run directory of its own
// ("<path>/<fingerprint>/run-<16 hex>/"), writing the manifest only when
// the input ended: a traversal stopped early leaves no manifest, and the
// next one computes the input again (and the stopped run's files are
// removed when its iterator is destroyed unless it was saved). Two
// traversals writing at once each write their run; the first to finish
// makes the snapshot. An error from the input is passed on, not written.
// A write that fails (a full disk) is logged at WARNING and the traversal
// goes on uncached; a damaged manifest is the error of the first element,
// and the traversal then reads the input (uncached).
//
// The fingerprint of an input holding a C++ callable (a lambda map), which
// has no spec, must be given: a name for what the input computes, to change
// when it does.
// A saved iterator that reads holds its position in the snapshot; one that
// writes closes its segment files, so that they are whole, and holds them
// with its input's position: a restore keeps them and writes on after them
// (a snapshot read in another process resumes the same way). Elements are
// written and read as dataset/element_record.h encodes them.
#pragma once

#include <string>

#include "sluice/dataset/dataset.h"
#include "sluice/tfrecord/compression.h"

namespace sluice {

struct SnapshotOptions {
  std::string path;  // the directory of snapshots, made if missing
  Compression compression = Compression::kNone;
  // The input's identity: "" (default) is its spec's fingerprint; required
  // when the input has no spec. Letters, digits, '-', '_' and '.', at most
  // 128 characters.
  std::string fingerprint;
};

Result<DatasetPtr> MakeSnapshotDataset(DatasetPtr input, SnapshotOptions options);

// The snapshot node of a pipeline spec (dataset/op_spec.h).
Result<DatasetPtr> SnapshotDatasetFromSpec(const spec::DatasetNode& node, const OpSpecContext& context);

}  // namespace sluice
