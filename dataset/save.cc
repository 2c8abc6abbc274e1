#include "sluice/dataset/save.h"

#include <filesystem>

#include "sluice/dataset/pipeline_spec_io.h"
#include "sluice/dataset/snapshot_format.h"
#include "sluice/dataset/snapshot_writer.h"
#include "sluice/dataset/spec_fingerprint.h"

namespace sluice {
namespace {

// The shard of an element: save's shard_func bound to the input spec.
using ShardFunction = std::function<Result<int64_t>(const Element&)>;

Result<ShardFunction> BindShardFunction(const ElementFunction& fn, const ElementSpec& input) {
  Result<BoundElementFunction> bound = fn.Bind(input);
  if (!bound.ok()) return bound.status().WithContext("save: shard_func");
  const ElementSpec& out = bound->output_spec;
  if (out.size() != 1 || out[0].dtype != DType::kInt64 || !out[0].shape.IsCompatibleWith(PartialShape(Shape{}))) {
    return InvalidArgumentError("save: shard_func must return one int64 scalar; ", fn.name(), " returns ", out);
  }
  return ShardFunction([apply = std::move(bound->apply), name = fn.name()](const Element& element) -> Result<int64_t> {
    Result<Element> out = apply(element);
    if (!out.ok()) return out.status().WithContext(StrCat("shard_func ", name));
    if (out->size() != 1 || (*out)[0].dtype() != DType::kInt64 || (*out)[0].rank() != 0) {
      return InvalidArgumentError("shard_func ", name, " returned ", out->size(), " components, not one int64 scalar");
    }
    return (*out)[0].scalar<int64_t>();
  });
}

}  // namespace

Result<int64_t> SaveDataset(const Dataset& dataset, const std::string& path, SaveOptions options) {
  auto context = [&](const Status& status) { return status.WithContext(StrCat("save to ", path)); };
  if (path.empty()) return InvalidArgumentError("save: path is empty");
  if (dataset.cardinality() == kInfiniteCardinality) {
    return InvalidArgumentError("save: the input is infinite; save writes a dataset to its end");
  }
  ShardFunction shard_of;
  if (options.shard_func != nullptr) {
    if (options.shard_count != 1) {
      return InvalidArgumentError("save: give shard_func or shard_count, not both (shard_count ", options.shard_count,
                                  ")");
    }
    SLUICE_ASSIGN_OR_RETURN(shard_of, BindShardFunction(*options.shard_func, dataset.element_spec()));
  }
  SnapshotWriterOptions writer_options{
      .compression = options.compression,
      .shard_count = options.shard_count,
      .order = shard_of ? snapshot::Manifest::BY_SHARD : snapshot::Manifest::ROUND_ROBIN};
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
    Status status;
    if (shard_of) {
      Result<int64_t> shard = shard_of(**next);
      status = shard.ok() ? (*writer)->WriteToShard(**next, *shard) : shard.status();
      if (!status.ok()) status = status.WithContext(StrCat("element ", written));
    } else {
      status = (*writer)->Write(**next);
    }
    if (!status.ok()) return context(status);
    ++written;
  }
  const Status finished = (*writer)->Finish();
  if (!finished.ok()) return context(finished);
  return written;
}

}  // namespace sluice
