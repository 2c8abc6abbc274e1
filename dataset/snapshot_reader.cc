#include "sluice/dataset/snapshot_reader.h"

#include <algorithm>
#include <filesystem>
#include <limits>

#include "sluice/dataset/element_record.h"
#include "sluice/tfrecord/compression.h"

namespace sluice {

namespace {

// kReadAhead rows, or fewer when they would pass kReadAheadBytes.
int64_t ReadAheadRows(const ElementSpec& spec) {
  int64_t row_bytes = 0;
  for (const ComponentSpec& component : spec.components()) {
    const Result<int64_t> bytes = CheckedNumBytes(component.dtype, component.shape.ToShape());
    if (!bytes.ok() || *bytes > SnapshotReader::kReadAheadBytes) return 1;
    row_bytes += *bytes;
  }
  if (row_bytes == 0) return SnapshotReader::kReadAhead;
  return std::clamp<int64_t>(SnapshotReader::kReadAheadBytes / row_bytes, 1, SnapshotReader::kReadAhead);
}

}  // namespace

SnapshotReader::SnapshotReader(std::string directory, std::shared_ptr<const snapshot::Manifest> manifest,
                               ElementSpec spec, SnapshotReadOptions options, std::shared_ptr<Runtime> runtime)
    : directory_(std::move(directory)),
      manifest_(std::move(manifest)),
      spec_(std::move(spec)),
      options_(options),
      runtime_(std::move(runtime)),
      shards_(manifest_->shards_size()),
      runs_(AllowsRecordRuns(spec_)),
      read_ahead_(runs_ ? ReadAheadRows(spec_) : 1) {
  if (manifest_->order() != snapshot::Manifest::BY_SHARD) return;
  int64_t end = 0;
  for (const snapshot::Shard& shard : manifest_->shards()) {
    for (const snapshot::Segment& segment : shard.segments()) end += segment.num_elements();
    shard_ends_.push_back(end);
  }
}

size_t SnapshotReader::ShardOf(int64_t index) const {
  if (shard_ends_.empty()) return static_cast<size_t>(index % manifest_->shards_size());
  return static_cast<size_t>(std::upper_bound(shard_ends_.begin(), shard_ends_.end(), index) - shard_ends_.begin());
}

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
  if (!runs_) return NextElement();
  if (ahead_next_ == ahead_rows_) [[unlikely]] {
    SLUICE_ASSIGN_OR_RETURN(std::optional<Element> run, ReadRun(read_ahead_));
    if (!run) return std::nullopt;
    ahead_ = *std::move(run);
    ahead_rows_ = ahead_[0].dim(0);
    ahead_next_ = 0;
  }
  Element row;
  for (const Tensor& component : ahead_.components) row.components.push_back_row(component, ahead_next_);
  if (++ahead_next_ == ahead_rows_) ahead_ = Element();
  return row;
}

Result<std::optional<Element>> SnapshotReader::NextRun(int64_t max_rows) {
  if (!runs_) {
    SLUICE_ASSIGN_OR_RETURN(std::optional<Element> element, NextElement());
    if (!element) return std::nullopt;
    for (Tensor& component : element->components) component.PrependUnitDim();
    return element;
  }
  if (ahead_next_ < ahead_rows_) return TakeAhead(std::min(max_rows, ahead_rows_ - ahead_next_));
  return ReadRun(max_rows);
}

Element SnapshotReader::TakeAhead(int64_t rows) {
  Element run;
  for (const Tensor& component : ahead_.components) {
    run.components.push_back(component.Slice(ahead_next_, ahead_next_ + rows));
  }
  ahead_next_ += rows;
  if (ahead_next_ == ahead_rows_) ahead_ = Element();
  return run;
}

Result<std::optional<Element>> SnapshotReader::NextElement() {
  if (next_ >= manifest_->num_elements()) return std::nullopt;
  const size_t s = ShardOf(next_);
  ++next_;  // an error is this element's: the next call goes on with the next
  Element element;
  SLUICE_RETURN_IF_ERROR(ReadFrom(s, [&](std::string_view record) -> Status {
    SLUICE_ASSIGN_OR_RETURN(element, DecodeElementRecord(spec_, record, owner_, &runtime_->ram_budget()));
    return OkStatus();
  }));
  return element;
}

Result<std::optional<Element>> SnapshotReader::ReadRun(int64_t max_rows) {
  if (!pending_.ok()) return std::exchange(pending_, OkStatus());
  const int64_t rows = std::min(max_rows, manifest_->num_elements() - next_);
  if (rows <= 0) return std::nullopt;
  // The run's memory is charged while it is made, as an element's is.
  int64_t charge = 0;
  for (const ComponentSpec& component : spec_.components()) {
    SLUICE_ASSIGN_OR_RETURN(int64_t bytes, CheckedNumBytes(component.dtype, component.shape.ToShape().Prepended(rows)));
    charge += bytes;
  }
  RamBudget& budget = runtime_->ram_budget();
  if (Status charged = ChargeRecordBytes(budget, charge); !charged.ok()) {
    return charged.WithContext(StrCat("a run of ", rows, " elements (", charge, " bytes)"));
  }
  Element run;
  for (const ComponentSpec& component : spec_.components()) {
    Result<Tensor> tensor = Tensor::TryAllocate(component.dtype, component.shape.ToShape().Prepended(rows),
                                                {.fill = Buffer::Fill::kUninitialized});
    if (!tensor.ok()) {
      budget.Release(charge);
      return tensor.status();
    }
    run.components.push_back(*std::move(tensor));
  }
  int64_t read = 0;
  const Buffer* kept = nullptr;  // the backing the string components hold last
  Status status;
  while (read < rows) {
    const size_t s = ShardOf(next_);
    ++next_;
    status = ReadFrom(s, [&](std::string_view record) {
      return DecodeElementRecordIntoRow(spec_, record, std::span<Tensor>(run.components.data(), run.size()), read);
    });
    if (!status.ok()) break;
    if (owner_.get() != kept) {
      for (size_t c = 0; c < spec_.size(); ++c) {
        if (spec_[c].dtype == DType::kString) run[c].AddBacking(owner_);
      }
      kept = owner_.get();
    }
    ++read;
  }
  budget.Release(charge);
  if (read == 0) return status;
  pending_ = status;
  if (read < rows) {
    for (Tensor& component : run.components) component = component.Slice(0, read);
  }
  return run;
}

Status SnapshotReader::ReadFrom(size_t s, const std::function<Status(std::string_view record)>& decode) {
  ShardCursor& cursor = shards_[s];
  const snapshot::Shard& shard = manifest_->shards(static_cast<int>(s));
  while (cursor.reader == nullptr || cursor.records == shard.segments(cursor.segment).num_elements()) {
    if (!cursor.broken.ok()) {
      const Status broken = cursor.broken;
      if (++cursor.records == shard.segments(cursor.segment).num_elements()) cursor.broken = OkStatus();
      return broken;
    }
    if (Status opened = OpenSegment(s); !opened.ok()) {
      if (shard.segments(cursor.segment).num_elements() > 0) cursor.broken = opened;
    }
  }
  const int64_t count = shard.segments(cursor.segment).num_elements();
  ++cursor.records;
  std::string_view record;
  Result<bool> got = cursor.reader->ReadRecord(&record, &owner_);
  if (!got.ok()) return got.status().WithContext(StrCat("snapshot ", directory_));
  if (!*got) {
    return Damage(s, DataLossError("the segment ends at byte offset ", cursor.reader->position().offset, " after ",
                                   cursor.records - 1, " records; the manifest counts ", count));
  }
  if (Status decoded = decode(record); !decoded.ok()) {
    return Damage(s, Status(decoded.code(), StrCat("record ", cursor.reader->record_index(), " at byte offset ",
                                                   cursor.reader->record_offset(), ": ", decoded.message())));
  }
  if (cursor.records == count) {
    // The segment must end here.
    std::string_view extra;
    std::shared_ptr<const Buffer> extra_owner;
    Result<bool> more = cursor.reader->ReadRecord(&extra, &extra_owner);
    if (!more.ok() || *more) {
      const Status damage = Damage(s, DataLossError("the segment has more than the ", count,
                                                    " records the manifest counts, from byte offset ",
                                                    cursor.reader->record_offset()));
      cursor.reader.reset();
      return damage;
    }
    cursor.reader.reset();
  }
  return OkStatus();
}

void SnapshotReader::Save(IteratorStateWriter& writer) const {
  writer.WriteInt("next", next_);
  // Rows read ahead come before the readers' positions, and before pending_.
  writer.WriteRows("ahead", ahead_, ahead_next_, ahead_rows_);
  writer.WriteStatus("pending", pending_);
  for (size_t s = 0; s < shards_.size(); ++s) {
    const ShardCursor& cursor = shards_[s];
    const std::string key = StrCat("shards/", s, "/");
    writer.WriteInt(key + "segment", cursor.segment);
    writer.WriteInt(key + "records", cursor.records);
    writer.WriteStatus(key + "broken", cursor.broken);
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
  SLUICE_ASSIGN_OR_RETURN(ahead_, reader.ReadRows("ahead", spec_, &ahead_rows_));
  if (ahead_rows_ > next_ || (ahead_rows_ > 0 && !runs_)) {
    return DataLossError("iterator state: snapshot holds ", ahead_rows_, " rows read ahead of element ", next_);
  }
  ahead_next_ = 0;
  SLUICE_RETURN_IF_ERROR(reader.ReadStatus("pending", &pending_));
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
    SLUICE_RETURN_IF_ERROR(reader.ReadStatus(key + "broken", &cursor.broken));
    if (!cursor.broken.ok() && (open || records == count)) {
      return DataLossError("iterator state: snapshot shard ", s, " has a broken segment ", open ? "open" : "read");
    }
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
