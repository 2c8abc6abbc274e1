#include "sluice/dataset/choose_from_datasets_dataset.h"

#include "sluice/dataset/concatenate_dataset.h"
#include "sluice/dataset/directed_interleave.h"
#include "sluice/dataset/op_spec.h"
#include "sluice/dataset/pipeline_spec.pb.h"

namespace sluice {
namespace {

class ChooseFromDatasetsDataset final : public Dataset {
 public:
  ChooseFromDatasetsDataset(ElementSpec spec, std::vector<DatasetPtr> datasets, DatasetPtr choice,
                            ChooseFromDatasetsOptions options)
      : Dataset(std::move(spec), DirectedInterleaveCardinality(*choice, datasets)),
        datasets_(std::move(datasets)),
        choice_(std::move(choice)),
        options_(options) {}

  std::string_view op_name() const override { return "choose_from_datasets"; }
  std::string DebugParams() const override {
    return StrCat("datasets=", datasets_.size(),
                  ", stop_on_empty_dataset=", options_.stop_on_empty_dataset ? "true" : "false");
  }
  std::vector<DatasetPtr> inputs() const override {
    std::vector<DatasetPtr> all = {choice_};
    all.insert(all.end(), datasets_.begin(), datasets_.end());
    return all;
  }
  std::unique_ptr<Iterator> NewIteratorInternal(const IteratorContext& ctx) const override {
    return MakeDirectedInterleaveIterator(
        {.op = "choose_from_datasets",
         .selector = choice_,
         .datasets = datasets_,
         .index_of = [](const Element& choice) -> Result<int64_t> { return choice[0].scalar<int64_t>(); },
         .stop_on_empty_dataset = options_.stop_on_empty_dataset},
        ctx);
  }
  Status ToSpec(spec::Pipeline* pipeline) const override {
    SLUICE_RETURN_IF_ERROR(choice_->ToSpec(pipeline));
    spec::ChooseFromDatasets node;
    for (const DatasetPtr& dataset : datasets_) SLUICE_RETURN_IF_ERROR(dataset->ToSpec(node.add_datasets()));
    node.set_stop_on_empty_dataset(options_.stop_on_empty_dataset);
    *pipeline->add_ops()->mutable_choose_from_datasets() = std::move(node);
    return OkStatus();
  }

 private:
  const std::vector<DatasetPtr> datasets_;
  const DatasetPtr choice_;
  const ChooseFromDatasetsOptions options_;
};

}  // namespace

Result<ElementSpec> DatasetsElementSpec(std::string_view op, const std::vector<DatasetPtr>& datasets) {
  if (datasets.empty()) return InvalidArgumentError(op, ": datasets is empty (give at least one)");
  for (size_t i = 0; i < datasets.size(); ++i) {
    if (datasets[i] == nullptr) return InvalidArgumentError(op, ": datasets[", i, "] is null");
  }
  ElementSpec spec = datasets[0]->element_spec();
  for (size_t i = 1; i < datasets.size(); ++i) {
    const ElementSpec& other = datasets[i]->element_spec();
    if (!SameNamesAndDTypes(spec, other)) {
      return InvalidArgumentError(op, ": All datasets must have the same type: datasets[0] has elements ",
                                  datasets[0]->element_spec(), " but datasets[", i, "] has ", other);
    }
    spec = CommonElementSpec(spec, other);
  }
  return spec;
}

Result<DatasetPtr> MakeChooseFromDatasetsDataset(std::vector<DatasetPtr> datasets, DatasetPtr choice_dataset,
                                                 ChooseFromDatasetsOptions options) {
  SLUICE_ASSIGN_OR_RETURN(ElementSpec spec, DatasetsElementSpec("choose_from_datasets", datasets));
  if (choice_dataset == nullptr) return InvalidArgumentError("choose_from_datasets: choice_dataset is null");
  const ElementSpec& choice = choice_dataset->element_spec();
  if (choice.size() != 1 || choice[0].dtype != DType::kInt64 || choice[0].shape.rank() != 0) {
    return InvalidArgumentError(
        "choose_from_datasets: The selector input must be a dataset of scalar int64 elements; got ", choice);
  }
  return Dataset::Make<ChooseFromDatasetsDataset>(std::move(spec), std::move(datasets), std::move(choice_dataset),
                                                  options);
}

Result<DatasetPtr> ChooseFromDatasetsDatasetFromSpec(const spec::DatasetNode& node, const OpSpecContext& context) {
  const spec::ChooseFromDatasets& choose = node.choose_from_datasets();
  std::vector<DatasetPtr> datasets;
  for (int i = 0; i < choose.datasets_size(); ++i) {
    SLUICE_ASSIGN_OR_RETURN(DatasetPtr dataset,
                            WithContext(context.BuildPipeline(choose.datasets(i)), StrCat("datasets[", i, "]")));
    datasets.push_back(std::move(dataset));
  }
  return MakeChooseFromDatasetsDataset(
      std::move(datasets), context.input(),
      {.stop_on_empty_dataset = !choose.has_stop_on_empty_dataset() || choose.stop_on_empty_dataset()});
}

}  // namespace sluice
