#include "sluice/model/job_preprocessing.h"

#include "sluice/dataset/builtin_functions.h"
#include "sluice/dataset/pipeline_spec.pb.h"
#include "sluice/dataset/pipeline_spec_io.h"

namespace sluice {

Result<std::optional<Preprocessing>> JobExportPreprocessing(const model::TrainingJob& job) {
  if (!job.has_export_preprocessing()) return std::optional<Preprocessing>();
  constexpr std::string_view kWhere = "train: export_preprocessing";
  const model::ExportPreprocessingConfig& config = job.export_preprocessing();
  Preprocessing preprocessing;
  for (int i = 0; i < config.raw_inputs_size(); ++i) {
    Result<InputSignature> input = InputSignatureFromProto(config.raw_inputs(i));
    if (!input.ok()) return InvalidArgumentError(kWhere, ".raw_inputs[", i, "]: ", input.status().message());
    preprocessing.raw_inputs.push_back(*std::move(input));
  }
  const bool from_train = config.train_maps() > 0;
  const std::string& path = from_train ? job.input().train() : config.functions();
  Result<spec::Pipeline> pipeline = ReadSpecFile(path);
  if (!pipeline.ok()) return pipeline.status().WithContext(kWhere);
  const auto wanted = static_cast<size_t>(config.train_maps());
  for (int i = 0; i < pipeline->ops_size() && (!from_train || preprocessing.functions.size() < wanted); ++i) {
    const spec::DatasetNode& op = pipeline->ops(i);
    if (!op.has_map()) {
      if (from_train) continue;
      return InvalidArgumentError(kWhere, ".functions: '", path, "' ops[", i,
                                  "] is not a map; the file holds only the map ops whose functions the export carries");
    }
    Result<ElementFunctionPtr> fn = ElementFunctionFromSpec(op.map().fn());
    if (!fn.ok()) return fn.status().WithContext(StrCat(kWhere, ": '", path, "' ops[", i, "] (map)"));
    preprocessing.functions.push_back(*std::move(fn));
  }
  if (from_train && preprocessing.functions.size() < wanted) {
    return InvalidArgumentError(kWhere, ".train_maps: ", wanted, " maps asked for; the train pipeline '", path,
                                "' has ", preprocessing.functions.size());
  }
  if (preprocessing.functions.empty()) {
    return InvalidArgumentError(kWhere, ".functions: '", path, "' holds no map ops");
  }
  return std::optional<Preprocessing>(std::move(preprocessing));
}

}  // namespace sluice
