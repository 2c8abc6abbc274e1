#include "sluice/dataset/snapshot_dataset.h"

#include <cctype>
#include <cstdio>
#include <filesystem>

#include "sluice/core/logging.h"
#include "sluice/dataset/iterator_state.h"
#include "sluice/dataset/op_spec.h"
#include "sluice/dataset/pipeline_spec.pb.h"
#include "sluice/dataset/pipeline_spec_io.h"
#include "sluice/dataset/seed_mix.h"
#include "sluice/dataset/snapshot_format.h"
#include "sluice/dataset/snapshot_reader.h"
#include "sluice/dataset/snapshot_writer.h"
#include "sluice/dataset/spec_fingerprint.h"

namespace sluice {
namespace {

constexpr size_t kMaxFingerprintLength = 128;
constexpr std::string_view kRunPrefix = "run-";

bool IsFingerprint(std::string_view name) {
  if (name.empty() || name.size() > kMaxFingerprintLength || name == "." || name == "..") return false;
  for (char c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '.') return false;
  }
  return true;
}

// "run-" and 16 hex digits, as NewRunName makes them.
bool IsRunName(std::string_view name) {
  if (name.size() != kRunPrefix.size() + 16 || !name.starts_with(kRunPrefix)) return false;
  for (char c : name.substr(kRunPrefix.size())) {
    if (!std::isxdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

std::string NewRunName() {
  char hex[17];
  std::snprintf(hex, sizeof(hex), "%016llx", static_cast<unsigned long long>(RandomSeed()));
  return StrCat(kRunPrefix, hex);
}

class SnapshotDataset final : public Dataset {
 public:
  SnapshotDataset(DatasetPtr input, SnapshotOptions options, std::string fingerprint, std::string spec_bytes)
      : Dataset(input->element_spec(), input->cardinality()),
        input_(std::move(input)),
        options_(std::move(options)),
        fingerprint_(std::move(fingerprint)),
        spec_bytes_(std::move(spec_bytes)),
        directory_(StrCat(options_.path, "/", fingerprint_)) {}

  std::string_view op_name() const override { return "snapshot"; }
  std::string DebugParams() const override {
    return StrCat("path=", options_.path, ", compression=", CompressionName(options_.compression),
                  ", fingerprint=", fingerprint_);
  }
  std::vector<DatasetPtr> inputs() const override { return {input_}; }
  std::unique_ptr<Iterator> NewIteratorInternal(const IteratorContext& ctx) const override;
  Status ToSpec(spec::Pipeline* pipeline) const override {
    SLUICE_RETURN_IF_ERROR(input_->ToSpec(pipeline));
    spec::Snapshot* node = pipeline->add_ops()->mutable_snapshot();
    node->set_path(options_.path);
    node->set_compression(std::string(CompressionName(options_.compression)));
    node->set_fingerprint(options_.fingerprint);
    return OkStatus();
  }

  const DatasetPtr& input() const { return input_; }
  const std::string& directory() const { return directory_; }
  SnapshotWriterOptions WriterOptions() const {
    return {.compression = options_.compression, .fingerprint = fingerprint_, .pipeline_spec = spec_bytes_};
  }
  // The directory's finished snapshot when it is this input's: NotFound
  // without one, FailedPrecondition for another pipeline's.
  Result<std::shared_ptr<const snapshot::Manifest>> FinishedSnapshot() const {
    SLUICE_ASSIGN_OR_RETURN(snapshot::Manifest manifest, ReadManifest(directory_));
    Result<ElementSpec> spec = ElementSpecFromProto(manifest.element_spec(), "element_spec");
    if (manifest.fingerprint() != fingerprint_ || manifest.pipeline_spec() != spec_bytes_ || !spec.ok() ||
        !(*spec == element_spec())) {
      return FailedPreconditionError("snapshot: ", directory_, " holds the snapshot of another pipeline (fingerprint ",
                                     manifest.fingerprint(), ", ", spec.ok() ? spec->ToString() : "?",
                                     "): remove it, or give this input another fingerprint");
    }
    return std::make_shared<const snapshot::Manifest>(std::move(manifest));
  }

 private:
  const DatasetPtr input_;
  const SnapshotOptions options_;
  const std::string fingerprint_;
  const std::string spec_bytes_;  // DeterministicSpecBytes of the input; "" without a spec
  const std::string directory_;
};

class SnapshotIterator final : public Iterator {
 public:
  SnapshotIterator(std::shared_ptr<const SnapshotDataset> dataset, const IteratorContext& ctx)
      : dataset_(std::move(dataset)), ctx_(ctx) {}
  ~SnapshotIterator() override {
    input_.reset();
    if (writer_ != nullptr && !kept_) RemoveRun();
  }

 protected:
  Result<std::optional<Element>> GetNextInternal() override {
    if (mode_ == Mode::kStart) SLUICE_RETURN_IF_ERROR(Start());
    switch (mode_) {
      case Mode::kRead:
        return reader_->Next();
      case Mode::kEnded:
        return std::nullopt;
      default:
        break;
    }
    SLUICE_ASSIGN_OR_RETURN(std::optional<Element> element, input_->GetNext());
    if (mode_ != Mode::kWrite) return element;
    if (!element) {
      Complete();
      return std::nullopt;
    }
    const Status written = writer_->Write(*element);
    if (!written.ok()) Abandon(written);
    return element;
  }

  // Runs of the snapshot when reading it; one element at a time otherwise.
  Result<std::optional<Element>> GetNextRunInternal(int64_t max_rows) override {
    if (mode_ == Mode::kStart) SLUICE_RETURN_IF_ERROR(Start());
    if (mode_ == Mode::kRead) return reader_->NextRun(max_rows);
    return Iterator::GetNextRunInternal(max_rows);
  }

  Status SaveInternal(IteratorStateWriter& writer) override {
    if (mode_ == Mode::kWrite) {
      const Status ended = writer_->EndSegments();
      if (!ended.ok()) Abandon(ended);
    }
    writer.WriteInt("mode", static_cast<int64_t>(mode_));
    switch (mode_) {
      case Mode::kStart:
      case Mode::kEnded:
        return OkStatus();
      case Mode::kRead:
        reader_->Save(writer);
        return OkStatus();
      case Mode::kWrite:
        kept_ = true;  // a restore may continue this run
        writer.WriteString("run", writer_->run());
        writer.WriteString("written", writer_->Progress().SerializeAsString());
        break;
      case Mode::kPassThrough:
        break;
    }
    return writer.WriteIterator("input", *input_);
  }

  Status RestoreInternal(IteratorStateReader& reader) override {
    SLUICE_ASSIGN_OR_RETURN(int64_t mode, reader.ReadInt("mode", 0, static_cast<int64_t>(Mode::kEnded)));
    mode_ = static_cast<Mode>(mode);
    switch (mode_) {
      case Mode::kStart:
      case Mode::kEnded:
        return OkStatus();
      case Mode::kRead: {
        SLUICE_ASSIGN_OR_RETURN(std::shared_ptr<const snapshot::Manifest> manifest, dataset_->FinishedSnapshot());
        StartReading(std::move(manifest));
        return reader_->Restore(reader);
      }
      case Mode::kWrite:
      case Mode::kPassThrough:
        break;
    }
    input_ = dataset_->input()->NewIterator(ctx_);
    SLUICE_RETURN_IF_ERROR(reader.ReadIterator("input", *input_));
    if (mode_ == Mode::kPassThrough) return OkStatus();
    SLUICE_ASSIGN_OR_RETURN(std::string run, reader.ReadString("run"));
    SLUICE_ASSIGN_OR_RETURN(std::string written_bytes, reader.ReadString("written"));
    if (!IsRunName(run)) return DataLossError("iterator state: snapshot run '", run, "' is not a run's name");
    Result<snapshot::Manifest> written = ParseManifest(written_bytes);
    if (!written.ok()) return written.status().WithContext("iterator state: snapshot written");
    Result<std::unique_ptr<SnapshotWriter>> resumed = SnapshotWriter::Resume(
        dataset_->directory(), run, dataset_->element_spec(), dataset_->WriterOptions(), *written);
    if (!resumed.ok()) {
      SLUICE_LOG(WARNING) << "snapshot: cannot continue the run " << dataset_->directory() << "/" << run << " ("
                          << resumed.status() << "): this traversal reads its input uncached";
      mode_ = Mode::kPassThrough;
      return OkStatus();
    }
    writer_ = *std::move(resumed);
    kept_ = true;
    return OkStatus();
  }

 private:
  enum class Mode : int64_t { kStart = 0, kRead = 1, kWrite = 2, kPassThrough = 3, kEnded = 4 };

  // Reads the snapshot if there is one, or starts writing it. An error
  // (a damaged manifest, one of another pipeline's) is returned once; the
  // traversal then reads the input uncached.
  Status Start() {
    Result<std::shared_ptr<const snapshot::Manifest>> manifest = dataset_->FinishedSnapshot();
    if (manifest.ok()) {
      StartReading(*std::move(manifest));
      return OkStatus();
    }
    input_ = dataset_->input()->NewIterator(ctx_);
    mode_ = Mode::kPassThrough;
    if (manifest.status().code() != StatusCode::kNotFound) return manifest.status();
    Result<std::unique_ptr<SnapshotWriter>> writer =
        SnapshotWriter::Create(dataset_->directory(), NewRunName(), dataset_->element_spec(), dataset_->WriterOptions());
    if (!writer.ok()) {
      SLUICE_LOG(WARNING) << "snapshot: cannot write " << dataset_->directory() << " (" << writer.status()
                          << "): this traversal reads its input uncached";
      return OkStatus();
    }
    writer_ = *std::move(writer);
    mode_ = Mode::kWrite;
    return OkStatus();
  }

  void StartReading(std::shared_ptr<const snapshot::Manifest> manifest) {
    reader_ = std::make_unique<SnapshotReader>(dataset_->directory(), std::move(manifest), dataset_->element_spec(),
                                               SnapshotReadOptions{}, ctx_.runtime);
    mode_ = Mode::kRead;
  }

  // The input ended: the run becomes the snapshot, unless another finished first.
  void Complete() {
    mode_ = Mode::kEnded;
    if (dataset_->FinishedSnapshot().ok()) {
      RemoveRun();
    } else if (const Status finished = writer_->Finish(); !finished.ok()) {
      SLUICE_LOG(WARNING) << "snapshot: cannot finish " << dataset_->directory() << ": " << finished;
      RemoveRun();
    }
    writer_.reset();
  }

  // Stops writing after a failed write; the traversal goes on uncached.
  void Abandon(const Status& failure) {
    SLUICE_LOG(WARNING) << "snapshot: writing " << dataset_->directory() << " failed (" << failure
                        << "): this traversal goes on uncached";
    RemoveRun();
    writer_.reset();
    mode_ = Mode::kPassThrough;
  }

  void RemoveRun() {
    std::error_code error;
    std::filesystem::remove_all(StrCat(writer_->directory(), "/", writer_->run()), error);
  }

  const std::shared_ptr<const SnapshotDataset> dataset_;
  const IteratorContext ctx_;
  Mode mode_ = Mode::kStart;
  std::unique_ptr<SnapshotReader> reader_;  // kRead
  std::unique_ptr<Iterator> input_;         // kWrite, kPassThrough
  std::unique_ptr<SnapshotWriter> writer_;  // kWrite
  bool kept_ = false;  // the run is in a saved state: its files stay when the iterator goes
};

std::unique_ptr<Iterator> SnapshotDataset::NewIteratorInternal(const IteratorContext& ctx) const {
  return std::make_unique<SnapshotIterator>(SharedThis<SnapshotDataset>(), ctx);
}

}  // namespace

Result<DatasetPtr> MakeSnapshotDataset(DatasetPtr input, SnapshotOptions options) {
  if (input == nullptr) return InvalidArgumentError("snapshot: input dataset is null");
  if (options.path.empty()) return InvalidArgumentError("snapshot: path is empty");
  if (!options.fingerprint.empty() && !IsFingerprint(options.fingerprint)) {
    return InvalidArgumentError("snapshot: fingerprint '", options.fingerprint, "' must be 1 to ",
                                kMaxFingerprintLength, " letters, digits, '-', '_' or '.' (a directory name)");
  }
  Result<spec::Pipeline> input_spec = DatasetToSpec(*input);
  std::string spec_bytes = input_spec.ok() ? DeterministicSpecBytes(*input_spec) : "";
  std::string fingerprint = options.fingerprint;
  if (fingerprint.empty()) {
    if (!input_spec.ok()) {
      return InvalidArgumentError("snapshot: the input has no spec to fingerprint (", input_spec.status().message(),
                                  "): give a fingerprint, a name for what the input computes");
    }
    fingerprint = SpecFingerprint(*input_spec);
  }
  return Dataset::Make<SnapshotDataset>(std::move(input), std::move(options), std::move(fingerprint),
                                        std::move(spec_bytes));
}

Result<DatasetPtr> SnapshotDatasetFromSpec(const spec::DatasetNode& node, const OpSpecContext& context) {
  const spec::Snapshot& snapshot = node.snapshot();
  SnapshotOptions options{.path = snapshot.path(), .fingerprint = snapshot.fingerprint()};
  SLUICE_ASSIGN_OR_RETURN(options.compression, WithContext(ParseCompression(snapshot.compression()), "compression"));
  return MakeSnapshotDataset(context.input(), std::move(options));
}

}  // namespace sluice
