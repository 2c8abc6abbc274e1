#include "sluice/dataset/sample_from_datasets_dataset.h"

#include <algorithm>
#include <cmath>
#include <span>

#include "sluice/dataset/choose_from_datasets_dataset.h"
#include "sluice/dataset/directed_interleave.h"
#include "sluice/dataset/op_spec.h"
#include "sluice/dataset/pipeline_spec.pb.h"
#include "sluice/dataset/random_dataset.h"
#include "sluice/dataset/zip_dataset.h"

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

// OK when `weights` are finite and >= 0 with a finite sum above 0; `whose`
// prefixes what the messages name ("" or "a weights_dataset element's").
// The messages leave the op's name to the caller (the directed interleave
// adds it to a draw's error).
Status CheckWeights(std::span<const double> weights, std::string_view whose) {
  double total = 0;
  for (size_t i = 0; i < weights.size(); ++i) {
    if (!std::isfinite(weights[i]) || weights[i] < 0) {
      return InvalidArgumentError(whose, "weights[", i, "] must be finite and >= 0 (got ", weights[i], ")");
    }
    total += weights[i];
  }
  if (!(total > 0 && std::isfinite(total))) {
    return InvalidArgumentError(whose.empty() ? "the " : whose, "weights must have a finite sum above 0 (got ", total,
                                ")");
  }
  return OkStatus();
}

// The running sums of one draw's weight vector (a weights_dataset element).
Result<std::vector<double>> DrawCumulative(const Tensor& weights, size_t datasets) {
  if (weights.rank() != 1 || weights.dim(0) != static_cast<int64_t>(datasets)) {
    return InvalidArgumentError("a weights_dataset element has shape ", weights.shape(),
                                "; each must hold one weight per dataset, [", datasets, "]");
  }
  std::vector<double> cumulative(datasets);
  for (size_t i = 0; i < datasets; ++i) {
    cumulative[i] = weights.dtype() == DType::kFloat32 ? weights.data<float>()[i] : weights.data<double>()[i];
  }
  SLUICE_RETURN_IF_ERROR(CheckWeights(cumulative, "a weights_dataset element's "));
  for (size_t i = 1; i < datasets; ++i) cumulative[i] += cumulative[i - 1];
  return cumulative;
}

class SampleFromDatasetsDataset final : public Dataset {
 public:
  SampleFromDatasetsDataset(ElementSpec spec, std::vector<DatasetPtr> datasets, DatasetPtr selector, Draws draws,
                            SampleFromDatasetsOptions options)
      : Dataset(std::move(spec), DirectedInterleaveCardinality(*selector, draws.datasets)),
        datasets_(std::move(datasets)),
        selector_(std::move(selector)),
        draws_(std::move(draws)),
        options_(std::move(options)) {}

  std::string_view op_name() const override { return "sample_from_datasets"; }
  std::string DebugParams() const override {
    std::string weights;
    for (double w : options_.weights) weights += StrCat(weights.empty() ? "" : ", ", w);
    return StrCat("datasets=", datasets_.size(), ", weights=[", weights, "]",
                  options_.weights_dataset ? ", weights_dataset" : "",
                  options_.seed ? StrCat(", seed=", *options_.seed) : std::string(),
                  ", stop_on_empty_dataset=", options_.stop_on_empty_dataset ? "true" : "false",
                  options_.rerandomize_each_iteration ? ", rerandomize_each_iteration=true" : "");
  }
  std::vector<DatasetPtr> inputs() const override {
    std::vector<DatasetPtr> all = {selector_};
    all.insert(all.end(), draws_.datasets.begin(), draws_.datasets.end());
    return all;
  }
  std::unique_ptr<Iterator> NewIteratorInternal(const IteratorContext& ctx) const override {
    std::function<Result<int64_t>(const Element&)> index_of;
    if (options_.weights_dataset) {
      // The selector's elements are (random, weight vector).
      index_of = [datasets = draws_.datasets.size()](const Element& draw) -> Result<int64_t> {
        SLUICE_ASSIGN_OR_RETURN(std::vector<double> cumulative, DrawCumulative(draw[1], datasets));
        return DrawnIndex(cumulative, draw[0].scalar<int64_t>());
      };
    } else {
      index_of = [cumulative = draws_.cumulative](const Element& draw) -> Result<int64_t> {
        return DrawnIndex(cumulative, draw[0].scalar<int64_t>());
      };
    }
    return MakeDirectedInterleaveIterator({.op = "sample_from_datasets",
                                           .selector = selector_,
                                           .datasets = draws_.datasets,
                                           .index_of = std::move(index_of),
                                           .stop_on_empty_dataset = options_.stop_on_empty_dataset},
                                          ctx);
  }
  Status ToSpec(spec::Pipeline* pipeline) const override {
    spec::SampleFromDatasets node;
    for (const DatasetPtr& dataset : datasets_) SLUICE_RETURN_IF_ERROR(dataset->ToSpec(node.add_datasets()));
    for (double w : options_.weights) node.add_weights(w);
    if (options_.weights_dataset)
      SLUICE_RETURN_IF_ERROR(options_.weights_dataset->ToSpec(node.mutable_weights_dataset()));
    if (options_.seed) node.set_seed(*options_.seed);
    node.set_stop_on_empty_dataset(options_.stop_on_empty_dataset);
    node.set_rerandomize_each_iteration(options_.rerandomize_each_iteration);
    *pipeline->add_ops()->mutable_sample_from_datasets() = std::move(node);
    return OkStatus();
  }

 private:
  const std::vector<DatasetPtr> datasets_;  // all of them, as the spec writes them
  const DatasetPtr selector_;               // the draws: random, zipped with weights_dataset when given
  const Draws draws_;
  const SampleFromDatasetsOptions options_;
};

}  // namespace

Result<DatasetPtr> MakeSampleFromDatasetsDataset(std::vector<DatasetPtr> datasets, SampleFromDatasetsOptions options) {
  SLUICE_ASSIGN_OR_RETURN(ElementSpec spec, DatasetsElementSpec("sample_from_datasets", datasets));
  if (!options.weights.empty() && options.weights.size() != datasets.size()) {
    return InvalidArgumentError(
        "sample_from_datasets: Invalid `weights`. `weights` should have the same length as "
        "`datasets` but got `len(weights)=",
        options.weights.size(), "` vs. `len(datasets)=", datasets.size(), "`.");
  }
  if (options.weights_dataset && !options.weights.empty()) {
    return InvalidArgumentError("sample_from_datasets: weights and weights_dataset are exclusive; got both");
  }
  if (!options.weights.empty()) {
    SLUICE_RETURN_IF_ERROR(CheckWeights(options.weights, "").WithContext("sample_from_datasets"));
  }
  SLUICE_ASSIGN_OR_RETURN(
      DatasetPtr selector,
      MakeRandomDataset({.seed = options.seed, .rerandomize_each_iteration = options.rerandomize_each_iteration}));
  if (options.weights_dataset) {
    const ElementSpec& weights = options.weights_dataset->element_spec();
    const bool vector = weights.size() == 1 && weights[0].shape.known_rank() && weights[0].shape.rank() == 1 &&
                        (weights[0].dtype == DType::kFloat32 || weights[0].dtype == DType::kFloat64);
    if (!vector) {
      return InvalidArgumentError("sample_from_datasets: weights_dataset's elements are ", weights,
                                  "; each must be one float32 or float64 vector of one weight per dataset");
    }
    const int64_t length = weights[0].shape.dim(0);
    if (length != kUnknownDim && length != static_cast<int64_t>(datasets.size())) {
      return InvalidArgumentError("sample_from_datasets: weights_dataset's vectors hold ", length, " weights, for ",
                                  datasets.size(), " datasets");
    }
    SLUICE_ASSIGN_OR_RETURN(selector, MakeZipDataset({std::move(selector), options.weights_dataset}));
  }
  Draws draws = DrawableDatasets(datasets, options.weights);
  return Dataset::Make<SampleFromDatasetsDataset>(std::move(spec), std::move(datasets), std::move(selector),
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
                                    .stop_on_empty_dataset = sample.stop_on_empty_dataset(),
                                    .rerandomize_each_iteration = sample.rerandomize_each_iteration()};
  if (sample.has_weights_dataset()) {
    SLUICE_ASSIGN_OR_RETURN(options.weights_dataset,
                            WithContext(context.BuildPipeline(sample.weights_dataset()), "weights_dataset"));
  }
  if (sample.has_seed()) options.seed = sample.seed();
  return MakeSampleFromDatasetsDataset(std::move(datasets), std::move(options));
}

}  // namespace sluice
