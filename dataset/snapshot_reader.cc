#include "sluice/dataset/snapshot_reader.h"

#include <filesystem>

#include "sluice/dataset/element_record.h"
#include "sluice/tfrecord/compression.h"

namespace sluice {

SnapshotReader::SnapshotReader(std::string directory, std::shared_ptr<const snapshot::Manifest> manifest,
                               ElementSpec spec, SnapshotReadOptions options, std::shared_ptr<Runtime> runtime)
    : directory_(std::move(directory)),
      manifest_(std::move(manifest)),
      spec_(std::move(spec)),
      options_(options),
      runtime_(std::move(runtime)),
      shards_(manifest_->shards_size()) {}

SnapshotReader::~SnapshotReader() = default;

std::string SnapshotReader::SegmentPath(size_t s, int segment) const {
  return StrCat(directory_, "/", manifest_->shards(static_cast<int>(s)).segments(segment).file());
}

Status SnapshotReader::Damage(size_t s, const Status& status) const {
  return Status(status.code(), StrCat("snapshot ", directory_, ": ", SegmentPath(s, shards_[s].segment), ": ",
                                      status.message()));
}

RecordReaderOptions SnapshotReader::ReaderOptions() const {
  return {.compression = ParseCompression(manifest_->compression()).value(),
          .buffer_size = options_.buffer_size,
          .max_record_bytes = static_cast<uint64_t>(options_.max_record_bytes),
          .charge = [runtime = runtime_](int64_t bytes) { return ChargeRecordBytes(runtime->ram_budget(), bytes); }};
}

Status SnapshotReader::OpenSegment(size_t s) {
  ShardCursor& cursor = shards_[s];
  cursor.reader.reset();
  cursor.records = 0;
  ++cursor.segment;
  const snapshot::Segment& segment = manifest_->shards(static_cast<int>(s)).segments(cursor.segment);
  const std::string path = SegmentPath(s, cursor.segment);
  std::error_code error;
  const std::uintmax_t size = std::filesystem::file_size(path, error);
  if (error) return NotFoundError("snapshot ", directory_, ": its segment ", path, " is missing: ", error.message());
  if (size != static_cast<std::uintmax_t>(segment.num_bytes())) {
    return DataLossError("snapshot ", directory_, ": segment ", path, " has ", size, " bytes, the manifest says ",
                         segment.num_bytes(), size < static_cast<std::uintmax_t>(segment.num_bytes())
                                                  ? StrCat(" (truncated at byte offset ", size, ")")
                                                  : std::string(" (bytes were added)"));
  }
  SLUICE_ASSIGN_OR_RETURN(cursor.reader, RecordReader::Open(path, ReaderOptions()));
  return OkStatus();
}

Result<std::optional<Element>> SnapshotReader::Next() {
  if (next_ >= manifest_->num_elements()) return std::nullopt;
  const size_t s = static_cast<size_t>(next_ % manifest_->shards_size());
  ++next_;  // an error is this element's: the next call goes on with the next
  SLUICE_ASSIGN_OR_RETURN(Element element, ReadFrom(s));
  return element;
}

Result<Element> SnapshotReader::ReadFrom(size_t s) {
  ShardCursor& cursor = shards_[s];
  const snapshot::Shard& shard = manifest_->shards(static_cast<int>(s));
  while (cursor.reader == nullptr || cursor.records == shard.segments(cursor.segment).num_elements()) {
    SLUICE_RETURN_IF_ERROR(OpenSegment(s));
  }
  const int64_t count = shard.segments(cursor.segment).num_elements();
  ++cursor.records;
  std::string_view record;
  Result<bool> got = cursor.reader->ReadRecord(&record, &owner_);
  if (!got.ok()) return got.status().WithContext(StrCat("snapshot ", directory_));
  if (!*got) {
    return Damage(s, DataLossError("the segment ends at byte offset ", cursor.reader->position().offset, " after ",
                                   cursor.records - 1, " records; the manifest counts ",
                                   count));
  }
  const uint64_t offset = cursor.reader->record_offset();
  Result<Element> element = DecodeElementRecord(spec_, record, owner_, &runtime_->ram_budget());
  if (!element.ok()) {
    return Damage(s, Status(element.status().code(), StrCat("record ", cursor.reader->record_index(), " at byte offset ",
                                                            offset, ": ", element.status().message())));
  }
  if (cursor.records == count) {
    // The segment must end here.
    std::string_view extra;
    Result<bool> more = cursor.reader->ReadRecord(&extra, &owner_);
    if (!more.ok() || *more) {
      const Status damage = Damage(s, DataLossError("the segment has more than the ", count,
                                                    " records the manifest counts, from byte offset ",
                                                    cursor.reader->record_offset()));
      cursor.reader.reset();
      return damage;
    }
    cursor.reader.reset();
  }
  return element;
}

void SnapshotReader::Save(IteratorStateWriter& writer) const {
  writer.WriteInt("next", next_);
  for (size_t s = 0; s < shards_.size(); ++s) {
    const ShardCursor& cursor = shards_[s];
    const std::string key = StrCat("shards/", s, "/");
    writer.WriteInt(key + "segment", cursor.segment);
    writer.WriteInt(key + "records", cursor.records);
    writer.WriteBool(key + "open", cursor.reader != nullptr);
    if (cursor.reader == nullptr) continue;
    const RecordReader::Position position = cursor.reader->position();
    writer.WriteInt(key + "offset", static_cast<int64_t>(position.offset));
    writer.WriteInt(key + "record_index", position.record_index);
    writer.WriteInt(key + "reader_state", static_cast<int64_t>(position.state));
  }
}

Status SnapshotReader::Restore(IteratorStateReader& reader) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  SLUICE_ASSIGN_OR_RETURN(next_, reader.ReadInt("next", 0, manifest_->num_elements()));
  for (size_t s = 0; s < shards_.size(); ++s) {
    ShardCursor& cursor = shards_[s];
    const snapshot::Shard& shard = manifest_->shards(static_cast<int>(s));
    const std::string key = StrCat("shards/", s, "/");
    SLUICE_ASSIGN_OR_RETURN(int64_t segment, reader.ReadInt(key + "segment", -1, shard.segments_size() - 1));
    SLUICE_ASSIGN_OR_RETURN(bool open, reader.ReadBool(key + "open"));
    const int64_t count = segment < 0 ? 0 : shard.segments(static_cast<int>(segment)).num_elements();
    SLUICE_ASSIGN_OR_RETURN(int64_t records, reader.ReadInt(key + "records", 0, count));
    cursor.segment = static_cast<int>(segment);
    cursor.records = records;
    if (!open) continue;
    if (segment < 0) return DataLossError("iterator state: snapshot shard ", s, " is open before its first segment");
    RecordReader::Position position;
    SLUICE_ASSIGN_OR_RETURN(int64_t offset, reader.ReadInt(key + "offset", 0, kMax));
    SLUICE_ASSIGN_OR_RETURN(position.record_index, reader.ReadInt(key + "record_index", -1, kMax));
    SLUICE_ASSIGN_OR_RETURN(int64_t state, reader.ReadInt(key + "reader_state", 0, 2));
    position.offset = static_cast<uint64_t>(offset);
    position.state = static_cast<RecordReader::State>(state);
    --cursor.segment;  // OpenSegment moves to the next
    SLUICE_RETURN_IF_ERROR(OpenSegment(s));
    cursor.records = records;
    SLUICE_RETURN_IF_ERROR(cursor.reader->Seek(position));
  }
  return OkStatus();
}

}  // namespace sluice
