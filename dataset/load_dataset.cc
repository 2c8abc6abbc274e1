#include "sluice/dataset/load_dataset.h"

#include "sluice/dataset/iterator_state.h"
#include "sluice/dataset/op_spec.h"
#include "sluice/dataset/pipeline_spec.pb.h"
#include "sluice/dataset/snapshot_format.h"
#include "sluice/dataset/snapshot_reader.h"

namespace sluice {
namespace {

constexpr int64_t kMaxMaxRecordBytes = int64_t{16} << 30;

class LoadDataset final : public Dataset {
 public:
  LoadDataset(LoadOptions options, std::shared_ptr<const snapshot::Manifest> manifest, ElementSpec spec)
      : Dataset(std::move(spec), manifest->num_elements()), options_(std::move(options)), manifest_(std::move(manifest)) {}

  std::string_view op_name() const override { return "load"; }
  std::string DebugParams() const override {
    return StrCat("path=", options_.path, ", elements=", manifest_->num_elements(), ", shards=",
                  manifest_->shards_size(), ", compression=", manifest_->compression());
  }
  std::vector<DatasetPtr> inputs() const override { return {}; }
  std::unique_ptr<Iterator> NewIteratorInternal(const IteratorContext& ctx) const override;
  Status ToSpec(spec::Pipeline* pipeline) const override {
    spec::Load* node = pipeline->add_ops()->mutable_load();
    node->set_path(options_.path);
    if (options_.element_spec) ElementSpecToProto(*options_.element_spec, node->mutable_element_spec());
    node->set_max_record_bytes(options_.max_record_bytes);
    return OkStatus();
  }

  const LoadOptions& options() const { return options_; }
  const std::shared_ptr<const snapshot::Manifest>& manifest() const { return manifest_; }

 private:
  const LoadOptions options_;
  const std::shared_ptr<const snapshot::Manifest> manifest_;
};

class LoadIterator final : public Iterator {
 public:
  LoadIterator(std::shared_ptr<const LoadDataset> dataset, const IteratorContext& ctx)
      : dataset_(std::move(dataset)),
        reader_(dataset_->options().path, dataset_->manifest(), dataset_->element_spec(),
                {.max_record_bytes = dataset_->options().max_record_bytes}, ctx.runtime) {}

 protected:
  Result<std::optional<Element>> GetNextInternal() override { return reader_.Next(); }
  Result<std::optional<Element>> GetNextRunInternal(int64_t max_rows) override { return reader_.NextRun(max_rows); }
  Status SaveInternal(IteratorStateWriter& writer) override {
    reader_.Save(writer);
    return OkStatus();
  }
  Status RestoreInternal(IteratorStateReader& reader) override { return reader_.Restore(reader); }

 private:
  const std::shared_ptr<const LoadDataset> dataset_;
  SnapshotReader reader_;
};

std::unique_ptr<Iterator> LoadDataset::NewIteratorInternal(const IteratorContext& ctx) const {
  return std::make_unique<LoadIterator>(SharedThis<LoadDataset>(), ctx);
}

}  // namespace

Result<DatasetPtr> MakeLoadDataset(LoadOptions options) {
  if (options.path.empty()) return InvalidArgumentError("load: path is empty");
  if (options.max_record_bytes < 1 || options.max_record_bytes > kMaxMaxRecordBytes) {
    return InvalidArgumentError("load: max_record_bytes must be 1 to ", kMaxMaxRecordBytes, " bytes, got ",
                                options.max_record_bytes);
  }
  Result<snapshot::Manifest> manifest = ReadManifest(options.path);
  if (!manifest.ok()) return manifest.status().WithContext("load");
  SLUICE_ASSIGN_OR_RETURN(ElementSpec spec, ElementSpecFromProto(manifest->element_spec(), "element_spec"));
  if (options.element_spec && !(*options.element_spec == spec)) {
    return InvalidArgumentError("load: element_spec ", *options.element_spec, " is not the snapshot's, ", spec,
                                " (", options.path, ")");
  }
  auto shared = std::make_shared<const snapshot::Manifest>(*std::move(manifest));
  return DatasetPtr(std::make_shared<LoadDataset>(std::move(options), std::move(shared), std::move(spec)));
}

Result<DatasetPtr> LoadDatasetFromSpec(const spec::DatasetNode& node, const OpSpecContext&) {
  const spec::Load& load = node.load();
  LoadOptions options{.path = load.path()};
  if (load.element_spec_size() > 0) {
    SLUICE_ASSIGN_OR_RETURN(options.element_spec, ElementSpecFromProto(load.element_spec(), "element_spec"));
  }
  if (load.has_max_record_bytes()) options.max_record_bytes = load.max_record_bytes();
  return MakeLoadDataset(std::move(options));
}

}  // namespace sluice
