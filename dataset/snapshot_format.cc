#include "sluice/dataset/snapshot_format.h"

#include <filesystem>

#include "sluice/core/durable_file.h"
#include "sluice/dataset/pipeline_spec_io.h"
#include "sluice/tfrecord/compression.h"
#include "sluice/tfrecord/record_format.h"
#include "sluice/tfrecord/record_reader.h"

namespace sluice {
namespace {

// A manifest holds a spec (at most kMaxSpecBytes) and a few bytes per
// segment.
constexpr uint64_t kMaxManifestBytes = kMaxSpecBytes + (uint64_t{256} << 20);

// A file name a manifest may give: relative, inside the directory.
bool IsPlainRelativePath(const std::string& file) {
  if (file.empty() || file.front() == '/' || file.find('\0') != std::string::npos) return false;
  for (const auto& part : std::filesystem::path(file)) {
    if (part == ".." || part == ".") return false;
  }
  return true;
}

Status CheckManifest(const snapshot::Manifest& manifest) {
  if (manifest.format_version() < kOldestSnapshotFormatVersion || manifest.format_version() > kSnapshotFormatVersion) {
    return UnimplementedError("format version ", manifest.format_version(), "; this build reads versions ",
                              kOldestSnapshotFormatVersion, " to ", kSnapshotFormatVersion);
  }
  if (!snapshot::Manifest::Order_IsValid(manifest.order()) ||
      (manifest.format_version() < 2 && manifest.order() != snapshot::Manifest::ROUND_ROBIN)) {
    return DataLossError("order ", manifest.order(), " is not an order of format version ", manifest.format_version());
  }
  const bool by_shard = manifest.order() == snapshot::Manifest::BY_SHARD;
  int64_t total = 0;
  SLUICE_RETURN_IF_ERROR(ElementSpecFromProto(manifest.element_spec(), "element_spec").status());
  SLUICE_RETURN_IF_ERROR(ParseCompression(manifest.compression()).status().WithContext("compression"));
  const int64_t shards = manifest.shards_size();
  if (shards < 1 || shards > kMaxSnapshotShards) {
    return DataLossError("it lists ", shards, " shards, not 1 to ", kMaxSnapshotShards);
  }
  if (manifest.num_elements() < 0) return DataLossError("num_elements is ", manifest.num_elements());
  for (int64_t s = 0; s < shards; ++s) {
    const snapshot::Shard& shard = manifest.shards(static_cast<int>(s));
    if (shard.segments_size() > kMaxSnapshotSegments) {
      return DataLossError("shard ", s, " lists ", shard.segments_size(), " segments, past the limit of ",
                           kMaxSnapshotSegments);
    }
    int64_t elements = 0;
    for (const snapshot::Segment& segment : shard.segments()) {
      if (!IsPlainRelativePath(segment.file())) {
        return DataLossError("shard ", s, " names the file '", segment.file(),
                             "', not a relative path inside the snapshot");
      }
      if (segment.num_elements() < 0 || segment.num_bytes() < 0 ||
          segment.num_elements() > INT64_MAX - elements) {
        return DataLossError("shard ", s, " file '", segment.file(), "' counts ", segment.num_elements(),
                             " elements and ", segment.num_bytes(), " bytes");
      }
      elements += segment.num_elements();
    }
    if (by_shard) {
      if (elements > manifest.num_elements() - total) {
        return DataLossError("shards 0 to ", s, " hold more than the ", manifest.num_elements(),
                             " elements of the snapshot");
      }
      total += elements;
      continue;
    }
    const int64_t share = ShardShare(manifest.num_elements(), shards, s);
    if (elements != share) {
      return DataLossError("shard ", s, " holds ", elements, " elements; ", share, " of the ",
                           manifest.num_elements(), " are its round-robin share");
    }
  }
  if (by_shard && total != manifest.num_elements()) {
    return DataLossError("its shards hold ", total, " elements, not the ", manifest.num_elements(), " of the snapshot");
  }
  return OkStatus();
}

}  // namespace

std::string ManifestPath(const std::string& directory) { return StrCat(directory, "/", kSnapshotManifestName); }

int64_t ShardShare(int64_t num_elements, int64_t shards, int64_t shard) {
  return num_elements / shards + (shard < num_elements % shards ? 1 : 0);
}

void ElementSpecToProto(const ElementSpec& spec, google::protobuf::RepeatedPtrField<spec::ComponentSpec>* out) {
  for (const ComponentSpec& component : spec.components()) {
    spec::ComponentSpec* proto = out->Add();
    proto->set_name(component.name);
    proto->set_dtype(std::string(DTypeName(component.dtype)));
    if (!component.shape.known_rank()) {
      proto->set_unknown_rank(true);
      continue;
    }
    for (int64_t dim : component.shape.dims()) proto->add_dims(dim);
  }
}

Result<ElementSpec> ElementSpecFromProto(const google::protobuf::RepeatedPtrField<spec::ComponentSpec>& protos,
                                         std::string_view field) {
  std::vector<ComponentSpec> components;
  for (int i = 0; i < protos.size(); ++i) {
    const spec::ComponentSpec& proto = protos[i];
    auto invalid = [&](const auto&... what) { return InvalidArgumentError(field, "[", i, "]: ", what...); };
    Result<DType> dtype = ParseDType(proto.dtype());
    if (!dtype.ok()) return invalid(dtype.status().message());
    ComponentSpec component{.name = proto.name(), .dtype = *dtype};
    if (proto.unknown_rank()) {
      if (proto.dims_size() > 0) return invalid("unknown_rank with ", proto.dims_size(), " dims");
      component.shape = PartialShape::UnknownRank();
    } else {
      if (proto.dims_size() > kMaxRank) return invalid("rank ", proto.dims_size(), " passes the limit of ", kMaxRank);
      for (int64_t dim : proto.dims()) {
        if (dim < -1) return invalid("dim ", dim, " (-1 is unknown; others are >= 0)");
      }
      component.shape = PartialShape(std::span<const int64_t>(proto.dims().data(), proto.dims().size()));
    }
    components.push_back(std::move(component));
  }
  return ElementSpec(std::move(components));
}

Status WriteManifest(const std::string& directory, const snapshot::Manifest& manifest) {
  const std::string data = manifest.SerializeAsString();
  std::string framed(record_format::kHeaderSize, '\0');
  record_format::EncodeHeader(data.size(), reinterpret_cast<uint8_t*>(framed.data()));
  framed += data;
  uint8_t footer[record_format::kFooterSize];
  record_format::EncodeFooter(data.data(), data.size(), footer);
  framed.append(reinterpret_cast<const char*>(footer), sizeof(footer));
  return WriteFileAtomically(ManifestPath(directory), framed)
      .WithContext(StrCat("snapshot ", directory, ": writing its manifest"));
}

Result<snapshot::Manifest> ReadManifest(const std::string& directory) {
  const std::string path = ManifestPath(directory);
  std::error_code error;
  if (!std::filesystem::exists(path, error)) {
    return NotFoundError("snapshot ", directory, " has no manifest (", path,
                         "): it is not a snapshot, or the run writing it stopped before the end");
  }
  auto damaged = [&](const Status& status) {
    return Status(status.code(), StrCat("snapshot manifest ", path, ": ", status.message()));
  };
  Result<std::unique_ptr<RecordReader>> reader =
      RecordReader::Open(path, {.buffer_size = 64 << 10, .max_record_bytes = kMaxManifestBytes});
  if (!reader.ok()) return damaged(reader.status());
  std::string record;
  Result<bool> got = (*reader)->ReadRecord(&record);
  if (!got.ok()) return got.status();  // names the file and offset
  if (!*got) return damaged(DataLossError("the file is empty"));
  std::string extra;
  Result<bool> more = (*reader)->ReadRecord(&extra);
  if (!more.ok() || *more) {
    return damaged(DataLossError("bytes follow its record at byte offset ", (*reader)->record_offset()));
  }
  Result<snapshot::Manifest> manifest = ParseManifest(record);
  if (!manifest.ok()) return damaged(manifest.status());
  return manifest;
}

Result<snapshot::Manifest> ParseManifest(std::string_view bytes) {
  snapshot::Manifest manifest;
  if (!manifest.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    return DataLossError("its record is not a snapshot Manifest");
  }
  Status checked = CheckManifest(manifest);
  if (checked.code() == StatusCode::kInvalidArgument) return DataLossError(checked.message());
  SLUICE_RETURN_IF_ERROR(checked);
  return manifest;
}

}  // namespace sluice
