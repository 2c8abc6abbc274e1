#include "sluice/model/export.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "sluice/dataset/text_proto_file.h"
#include "sluice/model/checkpoint_file.h"
#include "sluice/model/model.pb.h"
#include "sluice/model/preprocessing_file.h"

namespace sluice {
namespace {

constexpr char kGraphFile[] = "graph.pb";
constexpr char kWeightsFile[] = "weights.sluice";
constexpr size_t kMaxGraphBytes = size_t{64} << 20;

// `inputs` in the order of `signature`; InvalidArgument for a missing or an
// unknown name.
Result<std::vector<Tensor>> InSignatureOrder(std::span<const InputSignature> signature,
                                             const std::map<std::string, Tensor>& inputs) {
  std::vector<Tensor> ordered;
  for (const InputSignature& input : signature) {
    auto found = inputs.find(input.name);
    if (found == inputs.end()) return InvalidArgumentError("exported model: input '", input.name, "' is missing");
    ordered.push_back(found->second);
  }
  if (inputs.size() != ordered.size()) {
    for (const auto& [name, tensor] : inputs) {
      bool known = false;
      for (const InputSignature& input : signature) known |= input.name == name;
      if (!known) return InvalidArgumentError("exported model: no input named '", name, "'");
    }
  }
  return ordered;
}

Status WriteBundle(Model& model, const std::string& staging, const ExportOptions& options) {
  namespace fs = std::filesystem;
  {
    std::ofstream graph(fs::path(staging) / kGraphFile, std::ios::binary);
    if (!model.ToGraph().SerializeToOstream(&graph) || !graph.flush()) {
      return InternalError("export: cannot write ", (fs::path(staging) / kGraphFile).string());
    }
  }
  CheckpointContents weights;
  for (Variable* variable : model.variables()) weights.tensors[variable->name()] = variable->value();
  SLUICE_RETURN_IF_ERROR(WriteCheckpointFile((fs::path(staging) / kWeightsFile).string(), weights));
  if (options.preprocessing.has_value()) SLUICE_RETURN_IF_ERROR(WritePreprocessing(*options.preprocessing, staging));
  return OkStatus();
}

}  // namespace

Status ExportModel(Model& model, const std::string& directory, const ExportOptions& options) {
  namespace fs = std::filesystem;
  std::error_code error;
  if (fs::exists(directory, error)) {
    return AlreadyExistsError("export: '", directory, "' already exists; export into a new directory");
  }
  if (options.preprocessing.has_value()) {
    Result<BoundPreprocessing> bound = BindPreprocessing(*options.preprocessing, model.inputs());
    if (!bound.ok()) return bound.status().WithContext("export");
  }
  const std::string staging = StrCat(directory, ".tmp-", getpid());
  fs::remove_all(staging, error);
  if (!fs::create_directories(staging, error)) {
    return InternalError("export: cannot create '", staging, "': ", error.message());
  }
  Status written = WriteBundle(model, staging, options);
  if (written.ok()) {
    fs::rename(staging, directory, error);
    if (error) written = InternalError("export: cannot rename '", staging, "' to '", directory, "': ", error.message());
  }
  if (!written.ok()) fs::remove_all(staging, error);
  return written;
}

Result<std::unique_ptr<ExportedModel>> ExportedModel::Load(const std::string& directory) {
  namespace fs = std::filesystem;
  const fs::path graph_path = fs::path(directory) / kGraphFile;
  Result<std::string> graph_bytes = ReadTextFile(graph_path.string(), {"exported model graph", kMaxGraphBytes, "kMaxGraphBytes"});
  if (graph_bytes.status().code() == StatusCode::kNotFound) return graph_bytes.status();
  if (!graph_bytes.ok()) return DataLossError("exported model: ", graph_bytes.status().message());
  model::ModelGraph graph;
  if (!graph.ParseFromString(*graph_bytes)) return DataLossError("exported model: ", graph_path.string(), " is not a model graph");
  Result<std::unique_ptr<Model>> model = Model::FromGraph(graph);
  if (!model.ok()) return DataLossError("exported model: ", graph_path.string(), ": ", model.status().message());
  SLUICE_ASSIGN_OR_RETURN(CheckpointContents weights, ReadCheckpointFile((fs::path(directory) / kWeightsFile).string()));
  for (Variable* variable : (*model)->variables()) {
    auto found = weights.tensors.find(variable->name());
    if (found == weights.tensors.end()) {
      return DataLossError("exported model ", directory, ": no weights for '", variable->name(), "'");
    }
    Status assigned = variable->Assign(found->second);
    if (!assigned.ok()) return DataLossError("exported model ", directory, ": ", assigned.message());
  }
  SLUICE_ASSIGN_OR_RETURN(std::optional<Preprocessing> preprocessing, ReadPreprocessing(directory));
  std::optional<BoundPreprocessing> bound;
  if (preprocessing.has_value()) {
    Result<BoundPreprocessing> bound_or = BindPreprocessing(*preprocessing, (*model)->inputs());
    if (!bound_or.ok()) return DataLossError("exported model ", directory, ": ", bound_or.status().message());
    bound = *std::move(bound_or);
  }
  return std::unique_ptr<ExportedModel>(new ExportedModel(*std::move(model), std::move(bound)));
}

Result<std::vector<Tensor>> ExportedModel::Call(std::span<const Tensor> inputs) {
  return model_->Call(inputs, /*training=*/false);
}

Result<std::map<std::string, Tensor>> ExportedModel::Call(const std::map<std::string, Tensor>& inputs) {
  SLUICE_ASSIGN_OR_RETURN(std::vector<Tensor> ordered, InSignatureOrder(model_->inputs(), inputs));
  SLUICE_ASSIGN_OR_RETURN(std::vector<Tensor> outputs, Call(ordered));
  return Named(std::move(outputs));
}

std::span<const InputSignature> ExportedModel::raw_inputs() const {
  if (!preprocessing_.has_value()) return {};
  return preprocessing_->raw_inputs();
}

Result<std::vector<Tensor>> ExportedModel::CallRaw(std::span<const Tensor> raw_inputs) {
  if (!preprocessing_.has_value()) {
    return FailedPreconditionError("exported model: the bundle has no preprocessing, so it takes the model's "
                                   "inputs (Call), not raw inputs");
  }
  SLUICE_ASSIGN_OR_RETURN(std::vector<Tensor> inputs, preprocessing_->Apply(raw_inputs));
  return Call(inputs);
}

Result<std::map<std::string, Tensor>> ExportedModel::CallRaw(const std::map<std::string, Tensor>& raw_inputs) {
  SLUICE_ASSIGN_OR_RETURN(std::vector<Tensor> ordered, InSignatureOrder(this->raw_inputs(), raw_inputs));
  SLUICE_ASSIGN_OR_RETURN(std::vector<Tensor> outputs, CallRaw(ordered));
  return Named(std::move(outputs));
}

std::map<std::string, Tensor> ExportedModel::Named(std::vector<Tensor> outputs) const {
  std::map<std::string, Tensor> named;
  for (size_t i = 0; i < outputs.size(); ++i) named[model_->output_names()[i]] = std::move(outputs[i]);
  return named;
}

}  // namespace sluice
