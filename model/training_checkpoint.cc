#include "sluice/model/training_checkpoint.h"

#include "sluice/core/line_difference.h"
#include "sluice/dataset/iterator_state.h"
#include "sluice/model/dropout_layer.h"
#include "sluice/model/model.pb.h"

namespace sluice {
namespace {

constexpr char kGraph[] = "model/graph";
constexpr char kIterations[] = "optimizer/iterations";
constexpr char kEpochs[] = "trainer/epochs_done";
constexpr char kIterator[] = "input/iterator";
constexpr char kRanks[] = "trainer/ranks";

int Ranks(const Trainer& trainer) { return trainer.collectives() == nullptr ? 1 : trainer.collectives()->size(); }

Status RestoreVariable(const CheckpointContents& contents, const std::string& key, Variable& variable) {
  auto found = contents.tensors.find(key);
  if (found == contents.tensors.end()) {
    return InvalidArgumentError("the checkpoint has no value for '", variable.name(), "' (", key, ")");
  }
  return variable.Assign(found->second);
}

}  // namespace

Result<CheckpointContents> CaptureTrainingState(Trainer& trainer) {
  CheckpointContents contents;
  Model& model = trainer.model();
  contents.blobs[kGraph] = model.ToGraph().DebugString();
  for (Variable* variable : model.variables()) contents.tensors["model/" + variable->name()] = variable->value();
  for (Variable* slot : trainer.optimizer().slot_variables()) {
    contents.tensors["optimizer/" + slot->name()] = slot->value();
  }
  contents.scalars[kIterations] = trainer.optimizer().iterations();
  contents.scalars[kEpochs] = trainer.epochs_done();
  for (Layer* layer : model.layers()) {
    if (auto* dropout = dynamic_cast<DropoutLayer*>(layer)) contents.scalars["rng/" + layer->name()] = dropout->calls();
  }
  if (Iterator* iterator = trainer.train_iterator()) {
    SLUICE_ASSIGN_OR_RETURN(std::string position, SaveIteratorState(*iterator));
    if (Ranks(trainer) == 1) {
      contents.blobs[kIterator] = std::move(position);
    } else {
      SLUICE_ASSIGN_OR_RETURN(std::vector<std::string> positions,
                              trainer.collectives()->Gather(position, kMaxGatherBytes));
      for (size_t r = 0; r < positions.size(); ++r) contents.blobs[StrCat(kIterator, "/", r)] = std::move(positions[r]);
    }
  }
  if (Ranks(trainer) > 1) contents.scalars[kRanks] = Ranks(trainer);
  return contents;
}

Status RestoreTrainingState(Trainer& trainer, const CheckpointContents& contents) {
  Model& model = trainer.model();
  const int64_t saved_ranks = contents.scalars.count(kRanks) ? contents.scalars.at(kRanks) : 1;
  if (saved_ranks != Ranks(trainer)) {
    return FailedPreconditionError("the checkpoint was saved by a job of ", saved_ranks,
                                   " ranks, and holds each one's input position; resume it on ", saved_ranks,
                                   " ranks, not ", Ranks(trainer));
  }
  auto graph = contents.blobs.find(kGraph);
  if (graph == contents.blobs.end()) return InvalidArgumentError("not a training checkpoint: it has no model graph");
  const std::string ours = model.ToGraph().DebugString();
  if (graph->second != ours) {
    const std::optional<LineDifference> difference = FirstLineDifference(graph->second, ours);
    return InvalidArgumentError("the checkpoint belongs to a different model: checkpoint has '", difference->a,
                                "', this model has '", difference->b, "'");
  }
  for (Variable* variable : model.variables()) {
    SLUICE_RETURN_IF_ERROR(RestoreVariable(contents, "model/" + variable->name(), *variable));
  }
  trainer.optimizer().Build(model.trainable_variables());
  for (Variable* slot : trainer.optimizer().slot_variables()) {
    SLUICE_RETURN_IF_ERROR(RestoreVariable(contents, "optimizer/" + slot->name(), *slot));
  }
  trainer.optimizer().set_iterations(contents.scalars.count(kIterations) ? contents.scalars.at(kIterations) : 0);
  trainer.set_epochs_done(contents.scalars.count(kEpochs) ? static_cast<int>(contents.scalars.at(kEpochs)) : 0);
  for (Layer* layer : model.layers()) {
    if (auto* dropout = dynamic_cast<DropoutLayer*>(layer)) {
      auto calls = contents.scalars.find("rng/" + layer->name());
      dropout->set_calls(calls == contents.scalars.end() ? 0 : calls->second);
    }
  }
  auto iterator = contents.blobs.find(Ranks(trainer) == 1 ? std::string(kIterator)
                                                          : StrCat(kIterator, "/", trainer.collectives()->rank()));
  trainer.set_pending_input_state(iterator == contents.blobs.end() ? std::string() : iterator->second);
  return OkStatus();
}

Status ModelCheckpoint::OnEpochEnd(Trainer& trainer, const EpochLogs& logs, bool*) {
  if (logs.epoch % every_epochs_ != 0) return OkStatus();
  SLUICE_ASSIGN_OR_RETURN(CheckpointContents contents, CaptureTrainingState(trainer));
  if (!trainer.is_chief()) return OkStatus();
  return manager_.Save(trainer.optimizer().iterations(), contents).status();
}

}  // namespace sluice
