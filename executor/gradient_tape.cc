#include "sluice/executor/gradient_tape.h"

#include <memory>

#include "sluice/ops/binary_ops.h"
#include "sluice/ops/fill.h"

namespace sluice {

GradientTape::GradientTape(GradientTapeOptions options) : options_(options), installed_(this) {}

GradientTape::~GradientTape() = default;

void GradientTape::Watch(const Variable& variable) { tracked_.insert(variable.value().tape_id()); }

void GradientTape::Watch(Tensor& tensor) {
  if (tensor.tape_id() == 0) tensor.set_tape_id(NewTapeId());
  tracked_.insert(tensor.tape_id());
}

void GradientTape::OnOpRun(const OpDef& def, const OpAttrs& attrs, std::span<const Tensor> inputs,
                           std::span<Tensor> outputs) {
  if (!recording_ || used_ || def.gradient == nullptr) return;
  bool any_tracked = false;
  for (const Tensor& input : inputs) any_tracked |= IsTracked(input.tape_id());
  if (!any_tracked) return;
  for (Tensor& output : outputs) {
    if (output.tape_id() == 0) output.set_tape_id(NewTapeId());  // an outer tape may have stamped it
    tracked_.insert(output.tape_id());
  }
  records_.push_back(Record{&def, attrs, std::vector<Tensor>(inputs.begin(), inputs.end()),
                            std::vector<Tensor>(outputs.begin(), outputs.end())});
}

Result<std::unordered_map<uint64_t, Tensor>> GradientTape::Backpropagate(
    const Tensor& target, const std::unordered_set<uint64_t>& keep,
    const std::unordered_map<size_t, std::vector<uint64_t>>& final_after,
    const std::function<Status(uint64_t id, const Tensor& gradient)>& on_final) {
  std::unordered_map<uint64_t, Tensor> grads;
  if (!IsTracked(target.tape_id())) return grads;
  SLUICE_ASSIGN_OR_RETURN(grads[target.tape_id()], OnesLike(target));
  // Rules skip the inputs no tape tracks (constants, the input batch).
  std::unique_ptr<bool[]> needs_gradient;
  size_t needs_capacity = 0;
  // The sources no later record reads, once `index` is walked.
  const auto report_final = [&](size_t index) -> Status {
    auto found = final_after.find(index);
    if (found == final_after.end()) return OkStatus();
    for (uint64_t id : found->second) {
      auto grad = grads.find(id);
      if (grad != grads.end()) SLUICE_RETURN_IF_ERROR(on_final(id, grad->second));
    }
    return OkStatus();
  };
  for (size_t index = records_.size(); index-- > 0;) {
    const Record* record = &records_[index];
    bool reached = false;
    for (const Tensor& output : record->outputs) reached |= grads.contains(output.tape_id());
    if (!reached) {
      SLUICE_RETURN_IF_ERROR(report_final(index));
      continue;
    }
    std::vector<Tensor> output_grads;
    for (const Tensor& output : record->outputs) {
      auto found = grads.find(output.tape_id());
      if (found != grads.end()) {
        output_grads.push_back(found->second);
        // Every consumer of this output was recorded later, so its gradient
        // is complete; drop it unless it is a source.
        if (!keep.contains(output.tape_id())) grads.erase(found);
      } else {
        SLUICE_ASSIGN_OR_RETURN(output_grads.emplace_back(), ZerosLike(output));
      }
    }
    if (record->inputs.size() > needs_capacity) {
      needs_capacity = record->inputs.size();
      needs_gradient = std::make_unique<bool[]>(needs_capacity);
    }
    for (size_t i = 0; i < record->inputs.size(); ++i) needs_gradient[i] = IsTracked(record->inputs[i].tape_id());
    const GradientContext context{record->inputs, record->outputs, output_grads, record->attrs,
                                  {needs_gradient.get(), record->inputs.size()}};
    Result<std::vector<Tensor>> input_grads = record->def->gradient(context);
    if (!input_grads.ok()) {
      return input_grads.status().WithContext(StrCat("gradient of ", record->def->name));
    }
    for (size_t i = 0; i < record->inputs.size(); ++i) {
      const Tensor& input = record->inputs[i];
      const Tensor& grad = (*input_grads)[i];
      if (!IsTracked(input.tape_id()) || !grad.valid()) continue;
      SLUICE_CHECK(grad.shape() == input.shape())
          << "gradient rule of " << record->def->name << " gave shape " << grad.shape()
          << " for input " << i << " of shape " << input.shape();
      auto [slot, inserted] = grads.try_emplace(input.tape_id(), grad);
      if (!inserted) {
        SLUICE_ASSIGN_OR_RETURN(slot->second, Add(slot->second, grad));
      }
    }
    SLUICE_RETURN_IF_ERROR(report_final(index));
  }
  return grads;
}

Result<std::vector<Tensor>> GradientTape::Gradient(const Tensor& target, std::span<const Tensor> sources,
                                                   UnconnectedGradients unconnected, const GradientReady& on_ready) {
  return GradientOf(target, sources, unconnected, on_ready, [&](size_t i) {
    return StrCat("source ", i, " (", sources[i].dtype(), sources[i].shape(), ")");
  });
}

Result<std::vector<Tensor>> GradientTape::Gradient(const Tensor& target, std::span<Variable* const> variables,
                                                   UnconnectedGradients unconnected, const GradientReady& on_ready) {
  std::vector<Tensor> sources;
  sources.reserve(variables.size());
  for (const Variable* variable : variables) sources.push_back(variable->value());
  return GradientOf(target, sources, unconnected, on_ready,
                    [&](size_t i) { return StrCat("variable '", variables[i]->name(), "'"); });
}

Result<std::vector<Tensor>> GradientTape::GradientOf(const Tensor& target, std::span<const Tensor> sources,
                                                     UnconnectedGradients unconnected, const GradientReady& on_ready,
                                                     const std::function<std::string(size_t)>& describe) {
  if (used_) {
    return FailedPreconditionError(
        "GradientTape.Gradient can be called once on a non-persistent tape; make it persistent "
        "to ask again");
  }
  std::unordered_set<uint64_t> keep;
  for (const Tensor& source : sources) keep.insert(source.tape_id());
  // For on_ready: the sources of each tape id, and after which record each
  // id's gradient is final (the first that reads it).
  std::unordered_map<uint64_t, std::vector<size_t>> sources_of;
  std::unordered_map<size_t, std::vector<uint64_t>> final_after;
  std::vector<bool> reported(sources.size(), false);
  if (on_ready) {
    for (size_t i = 0; i < sources.size(); ++i) {
      if (sources[i].tape_id() != 0) sources_of[sources[i].tape_id()].push_back(i);
    }
    std::unordered_set<uint64_t> seen;
    for (size_t index = 0; index < records_.size(); ++index) {
      for (const Tensor& input : records_[index].inputs) {
        const uint64_t id = input.tape_id();
        if (sources_of.contains(id) && seen.insert(id).second) final_after[index].push_back(id);
      }
    }
  }
  const auto on_final = [&](uint64_t id, const Tensor& gradient) -> Status {
    for (size_t i : sources_of[id]) {
      reported[i] = true;
      SLUICE_RETURN_IF_ERROR(on_ready(i, gradient));
    }
    return OkStatus();
  };
  recording_ = false;
  Result<std::unordered_map<uint64_t, Tensor>> grads = Backpropagate(target, keep, final_after, on_final);
  recording_ = true;
  if (!options_.persistent) {
    used_ = true;
    records_.clear();
    records_.shrink_to_fit();
    tracked_.clear();
  }
  if (!grads.ok()) return grads.status();
  std::vector<Tensor> result;
  result.reserve(sources.size());
  for (size_t i = 0; i < sources.size(); ++i) {
    auto found = sources[i].tape_id() == 0 ? grads->end() : grads->find(sources[i].tape_id());
    if (found != grads->end()) {
      result.push_back(found->second);
    } else if (unconnected == UnconnectedGradients::kZero) {
      SLUICE_ASSIGN_OR_RETURN(result.emplace_back(), ZerosLike(sources[i]));
    } else {
      return InvalidArgumentError(describe(i),
                                  " did not take part in computing the target; pass "
                                  "UnconnectedGradients::kZero to get zeros instead");
    }
    if (on_ready && !reported[i]) SLUICE_RETURN_IF_ERROR(on_ready(i, result.back()));
  }
  return result;
}

Tensor StopGradient(Tensor x) {
  x.set_tape_id(0);
  return x;
}

}  // namespace sluice
