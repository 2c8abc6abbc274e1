#include "sluice/dataset/snapshot_writer.h"

#include <cstdio>
#include <filesystem>
#include <set>
#include <utility>

#include "sluice/core/durable_file.h"
#include "sluice/core/logging.h"
#include "sluice/dataset/element_record.h"
#include "sluice/dataset/snapshot_format.h"

namespace sluice {
namespace {

std::string JoinPath(const std::string& directory, const std::string& file) { return StrCat(directory, "/", file); }

Status MakeDirectories(const std::string& path) {
  std::error_code error;
  std::filesystem::create_directories(path, error);
  if (error) return InternalError("cannot create the directory '", path, "': ", error.message());
  return OkStatus();
}

}  // namespace

SnapshotWriter::SnapshotWriter(std::string directory, std::string run, ElementSpec spec,
                               SnapshotWriterOptions options)
    : directory_(std::move(directory)), run_(std::move(run)), spec_(std::move(spec)), options_(std::move(options)) {
  manifest_.set_format_version(kSnapshotFormatVersion);
  ElementSpecToProto(spec_, manifest_.mutable_element_spec());
  manifest_.set_compression(std::string(CompressionName(options_.compression)));
  for (int64_t s = 0; s < options_.shard_count; ++s) manifest_.add_shards();
  manifest_.set_fingerprint(options_.fingerprint);
  manifest_.set_pipeline_spec(options_.pipeline_spec);
  manifest_.set_order(options_.order);
  open_.resize(options_.shard_count);
  open_elements_.assign(options_.shard_count, 0);
}

SnapshotWriter::~SnapshotWriter() = default;

Result<std::unique_ptr<SnapshotWriter>> SnapshotWriter::Create(std::string directory, std::string run,
                                                               ElementSpec spec, SnapshotWriterOptions options) {
  if (options.shard_count < 1 || options.shard_count > kMaxSnapshotShards) {
    return InvalidArgumentError("shard_count must be 1 to ", kMaxSnapshotShards, ", got ", options.shard_count);
  }
  SLUICE_RETURN_IF_ERROR(MakeDirectories(run.empty() ? directory : JoinPath(directory, run)));
  return std::unique_ptr<SnapshotWriter>(
      new SnapshotWriter(std::move(directory), std::move(run), std::move(spec), std::move(options)));
}

Result<std::unique_ptr<SnapshotWriter>> SnapshotWriter::Resume(std::string directory, std::string run,
                                                               ElementSpec spec, SnapshotWriterOptions options,
                                                               const snapshot::Manifest& written) {
  SLUICE_ASSIGN_OR_RETURN(std::unique_ptr<SnapshotWriter> writer,
                          Create(std::move(directory), std::move(run), std::move(spec), std::move(options)));
  if (written.shards_size() != writer->manifest_.shards_size()) {
    return FailedPreconditionError("the run wrote ", written.shards_size(), " shards, not ",
                                   writer->manifest_.shards_size());
  }
  for (const snapshot::Shard& shard : written.shards()) {
    for (const snapshot::Segment& segment : shard.segments()) {
      const std::string path = JoinPath(writer->directory_, segment.file());
      std::error_code error;
      const std::uintmax_t size = std::filesystem::file_size(path, error);
      if (error) return FailedPreconditionError("its segment ", path, " is missing");
      if (size != static_cast<std::uintmax_t>(segment.num_bytes())) {
        return FailedPreconditionError("its segment ", path, " has ", size, " bytes; ", segment.num_bytes(),
                                       " were written");
      }
    }
  }
  *writer->manifest_.mutable_shards() = written.shards();
  writer->manifest_.set_num_elements(written.num_elements());
  writer->elements_ = written.num_elements();
  return writer;
}

std::string SnapshotWriter::SegmentFile(size_t shard, int64_t k) const {
  char name[64];
  std::snprintf(name, sizeof(name), "shard-%05zu-%05lld", shard, static_cast<long long>(k));
  return run_.empty() ? std::string(name) : JoinPath(run_, name);
}

Status SnapshotWriter::Write(const Element& element) {
  SLUICE_CHECK(options_.order == snapshot::Manifest::ROUND_ROBIN) << "SnapshotWriter::Write in BY_SHARD order";
  return Append(element, static_cast<size_t>(elements_ % options_.shard_count));
}

Status SnapshotWriter::WriteToShard(const Element& element, int64_t shard) {
  SLUICE_CHECK(options_.order == snapshot::Manifest::BY_SHARD) << "SnapshotWriter::WriteToShard in ROUND_ROBIN order";
  if (shard < 0 || shard >= kMaxSnapshotShards) {
    return InvalidArgumentError("shard index ", shard, " is not 0 to ", kMaxSnapshotShards - 1);
  }
  while (manifest_.shards_size() <= shard) {
    manifest_.add_shards();
    open_.emplace_back();
    open_elements_.push_back(0);
  }
  return Append(element, static_cast<size_t>(shard));
}

Status SnapshotWriter::Append(const Element& element, size_t shard) {
  SLUICE_CHECK(!finished_) << "SnapshotWriter::Write after Finish";
  if (open_[shard] == nullptr) {
    const std::string file = SegmentFile(shard, manifest_.shards(static_cast<int>(shard)).segments_size());
    SLUICE_ASSIGN_OR_RETURN(open_[shard], RecordWriter::Open(JoinPath(directory_, file),
                                                             {.compression = options_.compression}));
  }
  record_.clear();
  SLUICE_RETURN_IF_ERROR(EncodeElementRecord(spec_, element, &record_));
  SLUICE_RETURN_IF_ERROR(open_[shard]->WriteRecord(record_));
  ++open_elements_[shard];
  ++elements_;
  return OkStatus();
}

Status SnapshotWriter::CloseSegment(size_t shard) {
  if (open_[shard] == nullptr) return OkStatus();
  SLUICE_RETURN_IF_ERROR(open_[shard]->Close());
  open_[shard].reset();
  snapshot::Shard* entry = manifest_.mutable_shards(static_cast<int>(shard));
  snapshot::Segment* segment = entry->add_segments();
  segment->set_file(SegmentFile(shard, entry->segments_size() - 1));
  segment->set_num_elements(std::exchange(open_elements_[shard], 0));
  std::error_code error;
  const std::uintmax_t size = std::filesystem::file_size(JoinPath(directory_, segment->file()), error);
  if (error) return InternalError("cannot read the size of ", JoinPath(directory_, segment->file()), ": ", error.message());
  segment->set_num_bytes(static_cast<int64_t>(size));
  return OkStatus();
}

Status SnapshotWriter::EndSegments() {
  for (size_t shard = 0; shard < open_.size(); ++shard) SLUICE_RETURN_IF_ERROR(CloseSegment(shard));
  manifest_.set_num_elements(elements_);
  return OkStatus();
}

Status SnapshotWriter::Finish() {
  SLUICE_RETURN_IF_ERROR(EndSegments());
  finished_ = true;
  std::set<std::string> named;
  for (const snapshot::Shard& shard : manifest_.shards()) {
    for (const snapshot::Segment& segment : shard.segments()) {
      named.insert(segment.file());
      SLUICE_RETURN_IF_ERROR(SyncPath(JoinPath(directory_, segment.file())));
    }
  }
  const std::string run_directory = run_.empty() ? directory_ : JoinPath(directory_, run_);
  // Segments of this run that the manifest doesn't name are left over from
  // a process that went on after the save this run was resumed from.
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(run_directory, error)) {
    const std::string name = entry.path().filename().string();
    const std::string file = run_.empty() ? name : JoinPath(run_, name);
    if (name.starts_with("shard-") && !named.contains(file)) std::filesystem::remove(entry.path(), error);
  }
  SLUICE_RETURN_IF_ERROR(SyncPath(run_directory));
  if (!run_.empty()) SLUICE_RETURN_IF_ERROR(SyncPath(directory_));
  return WriteManifest(directory_, manifest_);
}

}  // namespace sluice
