#include "sluice/dataset/save.h"

#include <filesystem>

#include "sluice/dataset/pipeline_spec_io.h"
#include "sluice/dataset/snapshot_format.h"
#include "sluice/dataset/snapshot_writer.h"
#include "sluice/dataset/spec_fingerprint.h"

namespace sluice {

Result<int64_t> SaveDataset(const Dataset& dataset, const std::string& path, SaveOptions options) {
  auto context = [&](const Status& status) { return status.WithContext(StrCat("save to ", path)); };
  if (path.empty()) return InvalidArgumentError("save: path is empty");
  if (dataset.cardinality() == kInfiniteCardinality) {
    return InvalidArgumentError("save: the input is infinite; save writes a dataset to its end");
  }
  SnapshotWriterOptions writer_options{.compression = options.compression, .shard_count = options.shard_count};
  if (Result<spec::Pipeline> spec = DatasetToSpec(dataset); spec.ok()) {
    writer_options.fingerprint = SpecFingerprint(*spec);
    writer_options.pipeline_spec = DeterministicSpecBytes(*spec);
  }
  std::error_code error;
  std::filesystem::remove(ManifestPath(path), error);
  if (error) return InternalError("save: cannot remove the old manifest ", ManifestPath(path), ": ", error.message());
  Result<std::unique_ptr<SnapshotWriter>> writer =
      SnapshotWriter::Create(path, "", dataset.element_spec(), std::move(writer_options));
  if (!writer.ok()) return context(writer.status());
  std::unique_ptr<Iterator> it = dataset.MakeIterator();
  int64_t written = 0;
  while (true) {
    Result<std::optional<Element>> next = it->GetNext();
    if (!next.ok()) return context(next.status().WithContext(StrCat("element ", written)));
    if (!next->has_value()) break;
    const Status status = (*writer)->Write(**next);
    if (!status.ok()) return context(status);
    ++written;
  }
  const Status finished = (*writer)->Finish();
  if (!finished.ok()) return context(finished);
  return written;
}

}  // namespace sluice
