// sluice predict BUNDLE FILE... [--lines]: an exported model that carries
// its preprocessing (model/export.h), given raw inputs from files: each
// file's bytes are one input (an encoded image, a serialized Example, a
// text), or with --lines each line of each file is one. The bundle must
// take one raw input, a scalar string. Inputs go through the bundle in
// batches of at most kPredictBatch inputs and kPredictBatchBytes bytes;
// each prints one JSON line, the input's name ("FILE" or "FILE:LINE") and
// the model's outputs by name.
#include <iostream>

#include "sluice/dataset/text_proto_file.h"
#include "sluice/model/export.h"
#include "sluice/tools/commands.h"
#include "sluice/tools/stdout_writer.h"

namespace sluice::cli {
namespace {

constexpr size_t kPredictBatch = 64;
constexpr size_t kPredictBatchBytes = size_t{64} << 20;
constexpr size_t kMaxInputFileBytes = size_t{256} << 20;

struct RawInput {
  std::string name;  // "FILE" or "FILE:LINE"
  std::string bytes;
};

Result<std::vector<RawInput>> ReadInputs(const std::string& path, bool lines) {
  SLUICE_ASSIGN_OR_RETURN(std::string bytes, ReadTextFile(path, {"input", kMaxInputFileBytes, "kMaxInputFileBytes"}));
  if (!lines) return std::vector<RawInput>{{path, std::move(bytes)}};
  std::vector<RawInput> inputs;
  size_t begin = 0;
  for (int64_t line = 1; begin < bytes.size(); ++line) {
    size_t end = bytes.find('\n', begin);
    if (end == std::string::npos) end = bytes.size();
    inputs.push_back({StrCat(path, ":", line), bytes.substr(begin, end - begin)});
    begin = end + 1;
  }
  return inputs;
}

// Prints one line per input of the batch.
Status PredictBatch(ExportedModel& model, const std::vector<RawInput>& batch) {
  std::vector<std::string> raw;
  for (const RawInput& input : batch) raw.push_back(input.bytes);
  const Tensor raw_batch[] = {Tensor::FromVector(raw)};
  Result<std::vector<Tensor>> outputs = model.CallRaw(raw_batch);
  if (!outputs.ok()) return outputs.status().WithContext(StrCat("inputs ", batch.front().name, " to ", batch.back().name));
  std::vector<ComponentSpec> components = {{"input", DType::kString, PartialShape{}}};
  for (size_t i = 0; i < outputs->size(); ++i) {
    components.push_back({model.output_names()[i], (*outputs)[i].dtype(), (*outputs)[i].shape().WithoutFirstDim()});
  }
  const ElementSpec spec(std::move(components));
  for (size_t row = 0; row < batch.size(); ++row) {
    Element element{Tensor::Scalar(batch[row].name)};
    for (const Tensor& output : *outputs) element.components.push_back(output.Row(static_cast<int64_t>(row)));
    std::cout << ElementToJson(spec, element) << '\n';
  }
  return std::cout ? OkStatus() : FlushStdout();
}

}  // namespace

Status PredictCommand(const CommandArgs& args) {
  const std::string& bundle = args.positional[0];
  SLUICE_ASSIGN_OR_RETURN(std::unique_ptr<ExportedModel> model, ExportedModel::Load(bundle));
  const std::span<const InputSignature> raw = model->raw_inputs();
  if (raw.size() != 1 || raw[0].dtype != DType::kString || raw[0].shape.rank() != 0) {
    return InvalidArgumentError("predict: '", bundle, "' ",
                                model->has_preprocessing() ? "takes other raw inputs than one scalar string"
                                                           : "carries no preprocessing, so it takes no raw inputs",
                                "; predict feeds each input as one scalar string");
  }
  const bool lines = args.flags.count("--lines") > 0;
  std::vector<RawInput> batch;
  size_t batch_bytes = 0;
  for (size_t i = 1; i < args.positional.size(); ++i) {
    SLUICE_ASSIGN_OR_RETURN(std::vector<RawInput> inputs, ReadInputs(args.positional[i], lines));
    for (RawInput& input : inputs) {
      batch_bytes += input.bytes.size();
      batch.push_back(std::move(input));
      if (batch.size() == kPredictBatch || batch_bytes >= kPredictBatchBytes) {
        SLUICE_RETURN_IF_ERROR(PredictBatch(*model, batch));
        batch.clear();
        batch_bytes = 0;
      }
    }
  }
  if (!batch.empty()) SLUICE_RETURN_IF_ERROR(PredictBatch(*model, batch));
  return OkStatus();
}

}  // namespace sluice::cli
