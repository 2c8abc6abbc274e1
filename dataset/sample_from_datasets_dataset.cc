#include "sluice/dataset/sample_from_datasets_dataset.h"

#include <algorithm>
#include <cmath>

#include "sluice/dataset/choose_from_datasets_dataset.h"
#include "sluice/dataset/directed_interleave.h"
#include "sluice/dataset/op_spec.h"
#include "sluice/dataset/pipeline_spec.pb.h"
#include "sluice/dataset/random_dataset.h"

namespace sluice {
namespace {

// The datasets that can be drawn (weight > 0) and their running sums of
// weights, so that a uniform u in [0, total) picks the first whose sum
// passes it.
struct Draws {
  std::vector<DatasetPtr> datasets;
  std::vector<double> cumulative;
};

Draws DrawableDatasets(const std::vector<DatasetPtr>& datasets, const std::vector<double>& weights) {
  Draws draws;
  double total = 0;
  for (size_t i = 0; i < datasets.size(); ++i) {
    const double weight = weights.empty() ? 1.0 : weights[i];
    if (weight == 0) continue;
    total += weight;
    draws.datasets.push_back(datasets[i]);
    draws.cumulative.push_back(total);
  }
  return draws;
}

// The dataset a random int64 draws: its top 53 bits as u in [0, 1).
int64_t DrawnIndex(const std::vector<double>& cumulative, int64_t random) {
  const double u = static_cast<double>(static_cast<uint64_t>(random) >> 11) * 0x1.0p-53;
  const double target = u * cumulative.back();
  const auto it = std::upper_bound(cumulative.begin(), cumulative.end(), target);
  return std::min<int64_t>(it - cumulative.begin(), static_cast<int64_t>(cumulative.size()) - 1);
}

class SampleFromDatasetsDataset final : public Dataset {
 public:
  SampleFromDatasetsDataset(ElementSpec spec, std::vector<DatasetPtr> datasets, DatasetPtr random, Draws draws,
                            SampleFromDatasetsOptions options)
      : Dataset(std::move(spec), DirectedInterleaveCardinality(*random, draws.datasets)),
        datasets_(std::move(datasets)),
        random_(std::move(random)),
        draws_(std::move(draws)),
        options_(std::move(options)) {}

  std::string_view op_name() const override { return "sample_from_datasets"; }
  std::string DebugParams() const override {
    std::string weights;
    for (double w : options_.weights) weights += StrCat(weights.empty() ? "" : ", ", w);
    return StrCat("datasets=", datasets_.size(), ", weights=[", weights, "]",
                  options_.seed ? StrCat(", seed=", *options_.seed) : std::string(),
                  ", stop_on_empty_dataset=", options_.stop_on_empty_dataset ? "true" : "false");
  }
  std::vector<DatasetPtr> inputs() const override {
    std::vector<DatasetPtr> all = {random_};
    all.insert(all.end(), draws_.datasets.begin(), draws_.datasets.end());
    return all;
  }
  std::unique_ptr<Iterator> NewIteratorInternal(const IteratorContext& ctx) const override {
    return MakeDirectedInterleaveIterator(
        {.op = "sample_from_datasets",
         .selector = random_,
         .datasets = draws_.datasets,
         .index_of = [cumulative = draws_.cumulative](const Element& random) -> Result<int64_t> {
           return DrawnIndex(cumulative, random[0].scalar<int64_t>());
         },
         .stop_on_empty_dataset = options_.stop_on_empty_dataset},
        ctx);
  }
  Status ToSpec(spec::Pipeline* pipeline) const override {
    spec::SampleFromDatasets node;
    for (const DatasetPtr& dataset : datasets_) SLUICE_RETURN_IF_ERROR(dataset->ToSpec(node.add_datasets()));
    for (double w : options_.weights) node.add_weights(w);
    if (options_.seed) node.set_seed(*options_.seed);
    node.set_stop_on_empty_dataset(options_.stop_on_empty_dataset);
    *pipeline->add_ops()->mutable_sample_from_datasets() = std::move(node);
    return OkStatus();
  }

 private:
  const std::vector<DatasetPtr> datasets_;  // all of them, as the spec writes them
  const DatasetPtr random_;                 // the draws
  const Draws draws_;
  const SampleFromDatasetsOptions options_;
};

}  // namespace

Result<DatasetPtr> MakeSampleFromDatasetsDataset(std::vector<DatasetPtr> datasets,
                                                 SampleFromDatasetsOptions options) {
  SLUICE_ASSIGN_OR_RETURN(ElementSpec spec, DatasetsElementSpec("sample_from_datasets", datasets));
  if (!options.weights.empty() && options.weights.size() != datasets.size()) {
    return InvalidArgumentError("sample_from_datasets: Invalid `weights`. `weights` should have the same length as "
                                "`datasets` but got `len(weights)=",
                                options.weights.size(), "` vs. `len(datasets)=", datasets.size(), "`.");
  }
  double total = 0;
  for (size_t i = 0; i < options.weights.size(); ++i) {
    const double w = options.weights[i];
    if (!std::isfinite(w) || w < 0) {
      return InvalidArgumentError("sample_from_datasets: weights[", i, "] must be finite and >= 0 (got ", w, ")");
    }
    total += w;
  }
  if (!options.weights.empty() && !(total > 0 && std::isfinite(total))) {
    return InvalidArgumentError("sample_from_datasets: the weights must have a finite sum above 0 (got ", total, ")");
  }
  SLUICE_ASSIGN_OR_RETURN(DatasetPtr random, MakeRandomDataset({.seed = options.seed}));
  Draws draws = DrawableDatasets(datasets, options.weights);
  return Dataset::Make<SampleFromDatasetsDataset>(std::move(spec), std::move(datasets), std::move(random),
                                                  std::move(draws), std::move(options));
}

Result<DatasetPtr> SampleFromDatasetsDatasetFromSpec(const spec::DatasetNode& node, const OpSpecContext& context) {
  const spec::SampleFromDatasets& sample = node.sample_from_datasets();
  std::vector<DatasetPtr> datasets;
  for (int i = 0; i < sample.datasets_size(); ++i) {
    SLUICE_ASSIGN_OR_RETURN(DatasetPtr dataset,
                            WithContext(context.BuildPipeline(sample.datasets(i)), StrCat("datasets[", i, "]")));
    datasets.push_back(std::move(dataset));
  }
  SampleFromDatasetsOptions options{.weights = {sample.weights().begin(), sample.weights().end()},
                                    .stop_on_empty_dataset = sample.stop_on_empty_dataset()};
  if (sample.has_seed()) options.seed = sample.seed();
  return MakeSampleFromDatasetsDataset(std::move(datasets), std::move(options));
}

}  // namespace sluice
