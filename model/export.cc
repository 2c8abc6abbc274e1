#include "sluice/model/export.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "sluice/model/checkpoint_file.h"
#include "sluice/model/model.pb.h"

namespace sluice {
namespace {

constexpr char kGraphFile[] = "graph.pb";
constexpr char kWeightsFile[] = "weights.sluice";

}  // namespace

Status ExportModel(Model& model, const std::string& directory) {
  namespace fs = std::filesystem;
  std::error_code error;
  if (fs::exists(directory, error)) {
    return AlreadyExistsError("export: '", directory, "' already exists; export into a new directory");
  }
  const std::string staging = StrCat(directory, ".tmp-", getpid());
  fs::remove_all(staging, error);
  if (!fs::create_directories(staging, error)) {
    return InternalError("export: cannot create '", staging, "': ", error.message());
  }
  {
    std::ofstream graph(fs::path(staging) / kGraphFile, std::ios::binary);
    if (!model.ToGraph().SerializeToOstream(&graph) || !graph.flush()) {
      return InternalError("export: cannot write ", (fs::path(staging) / kGraphFile).string());
    }
  }
  CheckpointContents weights;
  for (Variable* variable : model.variables()) weights.tensors[variable->name()] = variable->value();
  SLUICE_RETURN_IF_ERROR(WriteCheckpointFile((fs::path(staging) / kWeightsFile).string(), weights));
  fs::rename(staging, directory, error);
  if (error) return InternalError("export: cannot rename '", staging, "' to '", directory, "': ", error.message());
  return OkStatus();
}

Result<std::unique_ptr<ExportedModel>> ExportedModel::Load(const std::string& directory) {
  namespace fs = std::filesystem;
  const fs::path graph_path = fs::path(directory) / kGraphFile;
  std::ifstream in(graph_path, std::ios::binary);
  if (!in) return NotFoundError("exported model: cannot open ", graph_path.string());
  model::ModelGraph graph;
  if (!graph.ParseFromIstream(&in)) return DataLossError("exported model: ", graph_path.string(), " is not a model graph");
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
  return std::unique_ptr<ExportedModel>(new ExportedModel(*std::move(model)));
}

Result<std::vector<Tensor>> ExportedModel::Call(std::span<const Tensor> inputs) {
  return model_->Call(inputs, /*training=*/false);
}

Result<std::map<std::string, Tensor>> ExportedModel::Call(const std::map<std::string, Tensor>& inputs) {
  std::vector<Tensor> ordered;
  for (const InputSignature& input : model_->inputs()) {
    auto found = inputs.find(input.name);
    if (found == inputs.end()) return InvalidArgumentError("exported model: input '", input.name, "' is missing");
    ordered.push_back(found->second);
  }
  if (inputs.size() != ordered.size()) {
    for (const auto& [name, tensor] : inputs) {
      bool known = false;
      for (const InputSignature& input : model_->inputs()) known |= input.name == name;
      if (!known) return InvalidArgumentError("exported model: no input named '", name, "'");
    }
  }
  SLUICE_ASSIGN_OR_RETURN(std::vector<Tensor> outputs, Call(ordered));
  std::map<std::string, Tensor> named;
  for (size_t i = 0; i < outputs.size(); ++i) named[model_->output_names()[i]] = outputs[i];
  return named;
}

}  // namespace sluice
