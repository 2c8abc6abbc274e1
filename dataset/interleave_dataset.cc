#include "sluice/dataset/interleave_dataset.h"

#include <string>
#include <vector>

#include "sluice/dataset/interleave_internal.h"
#include "sluice/dataset/iterator_state.h"
#include "sluice/dataset/op_spec.h"
#include "sluice/dataset/pipeline_spec.pb.h"

namespace sluice {

std::string InterleaveDataset::DebugParams() const {
  if (identity_.write_node) return StrCat("fn=", fn_->name());
  std::string params = StrCat("fn=", fn_->name(), ", cycle_length=",
                              options_.cycle_length == kAutotune ? StrCat("autotune (", cycle_length_, ")")
                                                                 : std::to_string(cycle_length_),
                              ", block_length=", options_.block_length);
  return params + ParallelParams(options_.num_parallel_calls, options_.deterministic);
}

Status InterleaveDataset::ToSpec(spec::Pipeline* pipeline) const {
  SLUICE_RETURN_IF_ERROR(input_->ToSpec(pipeline));
  if (identity_.write_node) return identity_.write_node(*fn_, pipeline);
  spec::Interleave interleave;
  SLUICE_RETURN_IF_ERROR(fn_->ToSpec(interleave.mutable_function()));
  interleave.set_cycle_length(options_.cycle_length);
  interleave.set_block_length(options_.block_length);
  if (options_.num_parallel_calls != 0) interleave.set_num_parallel_calls(options_.num_parallel_calls);
  if (options_.deterministic != Determinism::kDefault) {
    interleave.set_deterministic(options_.deterministic == Determinism::kDeterministic);
  }
  *pipeline->add_ops()->mutable_interleave() = std::move(interleave);
  return OkStatus();
}

Result<DatasetPtr> InterleaveDataset::Open(const Element& element) const {
  Result<DatasetPtr> dataset = fn_->Apply(element);
  if (!dataset.ok()) return dataset.status().WithContext(StrCat(identity_.op_name, "(", fn_->name(), ")"));
  if (!element_spec().IsCompatibleWith((*dataset)->element_spec())) {
    return InvalidArgumentError(identity_.op_name, ": the function returned a dataset with element spec ",
                                (*dataset)->element_spec(), " but its declared spec is ", element_spec());
  }
  return dataset;
}

namespace {

// tf.data's sequential interleave order: a cursor over cycle_length slots
// emits block_length elements from each slot's iterator in turn. A slot is
// opened lazily, from the next input element, when the cursor reaches it
// empty; an exhausted iterator frees its slot and moves the cursor on.
class InterleaveIterator final : public Iterator {
 public:
  InterleaveIterator(std::shared_ptr<const InterleaveDataset> dataset, const IteratorContext& ctx)
      : dataset_(std::move(dataset)),
        ctx_(ctx),
        input_(dataset_->input()->NewIterator(ctx)),
        slots_(static_cast<size_t>(dataset_->slot_count())),
        slot_args_(slots_.size()) {}

 protected:
  Result<std::optional<Element>> GetNextInternal() override {
    while (!input_done_ || open_slots_ > 0) {
      std::unique_ptr<Iterator>& slot = slots_[cursor_];
      if (slot != nullptr) {
        SLUICE_ASSIGN_OR_RETURN(std::optional<Element> element, slot->GetNext());
        if (element) {
          if (++block_index_ == dataset_->block_length()) AdvanceCursor();
          return element;
        }
        slot.reset();
        slot_args_[cursor_] = Element();
        --open_slots_;
        AdvanceCursor();
      } else if (!input_done_) {
        SLUICE_ASSIGN_OR_RETURN(std::optional<Element> element, input_->GetNext());
        if (!element) {
          input_done_ = true;
          continue;
        }
        SLUICE_ASSIGN_OR_RETURN(DatasetPtr dataset, dataset_->Open(*element));
        RecordTunable(TunableParameter::kCycleLength, dataset_->cycle_length(), dataset_->cycle_length_autotuned());
        RecordTunable(TunableParameter::kNumParallelCalls, 0, /*autotuned=*/false);
        slot = dataset->NewIterator(ctx_);
        slot_args_[cursor_] = std::move(*element);
        ++open_slots_;
      } else {
        AdvanceCursor();
      }
    }
    return std::nullopt;
  }

  // Per open slot, the input element it was opened from and its iterator's
  // state; a restore opens the slot again from that element (the function
  // is assumed stateless) and restores the new iterator.
  Status SaveInternal(IteratorStateWriter& writer) override {
    writer.WriteInt("cursor", static_cast<int64_t>(cursor_));
    writer.WriteInt("block_index", block_index_);
    writer.WriteBool("input_done", input_done_);
    SLUICE_RETURN_IF_ERROR(writer.WriteIterator("input", *input_));
    for (size_t i = 0; i < slots_.size(); ++i) {
      writer.WriteBool(StrCat("slot_", i, "/open"), slots_[i] != nullptr);
      if (slots_[i] == nullptr) continue;
      writer.WriteElement(StrCat("slot_", i, "/args"), slot_args_[i]);
      SLUICE_RETURN_IF_ERROR(writer.WriteIterator(StrCat("slot_", i, "/iterator"), *slots_[i]));
    }
    return OkStatus();
  }
  Status RestoreInternal(IteratorStateReader& reader) override {
    SLUICE_ASSIGN_OR_RETURN(int64_t cursor, reader.ReadInt("cursor", 0, static_cast<int64_t>(slots_.size()) - 1));
    cursor_ = static_cast<size_t>(cursor);
    SLUICE_ASSIGN_OR_RETURN(block_index_, reader.ReadInt("block_index", 0, dataset_->block_length()));
    SLUICE_ASSIGN_OR_RETURN(input_done_, reader.ReadBool("input_done"));
    SLUICE_RETURN_IF_ERROR(reader.ReadIterator("input", *input_));
    open_slots_ = 0;
    for (size_t i = 0; i < slots_.size(); ++i) {
      slots_[i].reset();
      slot_args_[i] = Element();
      SLUICE_ASSIGN_OR_RETURN(bool open, reader.ReadBool(StrCat("slot_", i, "/open")));
      if (!open) continue;
      SLUICE_ASSIGN_OR_RETURN(slot_args_[i],
                              reader.ReadElement(StrCat("slot_", i, "/args"), dataset_->input()->element_spec()));
      SLUICE_ASSIGN_OR_RETURN(DatasetPtr dataset, dataset_->Open(slot_args_[i]));
      slots_[i] = dataset->NewIterator(ctx_);
      SLUICE_RETURN_IF_ERROR(reader.ReadIterator(StrCat("slot_", i, "/iterator"), *slots_[i]));
      ++open_slots_;
    }
    return OkStatus();
  }

 private:
  void AdvanceCursor() {
    block_index_ = 0;
    cursor_ = (cursor_ + 1) % slots_.size();
  }

  const std::shared_ptr<const InterleaveDataset> dataset_;
  const IteratorContext ctx_;
  const std::unique_ptr<Iterator> input_;
  std::vector<std::unique_ptr<Iterator>> slots_;  // cycle_length slots; null when empty
  std::vector<Element> slot_args_;                // the input element each open slot came from
  size_t cursor_ = 0;
  int64_t block_index_ = 0;
  int64_t open_slots_ = 0;
  bool input_done_ = false;
};

}  // namespace

std::unique_ptr<Iterator> InterleaveDataset::NewIteratorInternal(const IteratorContext& ctx) const {
  if (options_.num_parallel_calls != 0) {
    return NewParallelInterleaveIterator(SharedThis<InterleaveDataset>(), ctx);
  }
  return std::make_unique<InterleaveIterator>(SharedThis<InterleaveDataset>(), ctx);
}

Result<DatasetPtr> MakeInterleaveDataset(DatasetPtr input, DatasetFunctionPtr fn, InterleaveOptions options) {
  return MakeInterleaveDatasetAs({}, std::move(input), std::move(fn), options);
}

Result<DatasetPtr> MakeInterleaveDatasetAs(InterleaveIdentity identity, DatasetPtr input, DatasetFunctionPtr fn,
                                           InterleaveOptions options) {
  const std::string_view op = identity.op_name;
  if (input == nullptr) return InvalidArgumentError(op, ": input dataset is null");
  if (fn == nullptr) return InvalidArgumentError(op, ": function is null");
  if (options.cycle_length <= 0 && options.cycle_length != kAutotune) {
    return InvalidArgumentError(op, ": cycle_length must be greater than zero (got ", options.cycle_length, ").");
  }
  if (options.block_length <= 0) {
    return InvalidArgumentError(op, ": block_length must be greater than zero (got ", options.block_length, ").");
  }
  if (options.cycle_length > kMaxInterleaveCycleLength) {
    return InvalidArgumentError(op, ": cycle_length must be at most ", kMaxInterleaveCycleLength, " (got ",
                                options.cycle_length, ").");
  }
  SLUICE_RETURN_IF_ERROR(CheckNumParallelCalls(op, options.num_parallel_calls));
  if (options.cycle_length != kAutotune && options.num_parallel_calls > options.cycle_length) {
    return InvalidArgumentError(op, ": num_parallel_calls must be less than or equal to cycle_length (got ",
                                options.num_parallel_calls, " > ", options.cycle_length, ").");
  }
  Result<ElementSpec> spec = fn->OutputSpec(input->element_spec());
  if (!spec.ok()) return spec.status().WithContext(StrCat(op, "(", fn->name(), ")"));
  return Dataset::Make<InterleaveDataset>(std::move(identity), std::move(input), std::move(fn), options,
                                          *std::move(spec));
}

Result<DatasetPtr> InterleaveDatasetFromSpec(const spec::DatasetNode& node, const OpSpecContext& context) {
  const spec::Interleave& interleave = node.interleave();
  if (!interleave.has_function()) return InvalidArgumentError("interleave has no function");
  SLUICE_ASSIGN_OR_RETURN(DatasetFunctionPtr fn,
                          WithContext(context.BuildFunction(interleave.function()), "function"));
  const InterleaveOptions options{
      .cycle_length = interleave.has_cycle_length() ? interleave.cycle_length() : kAutotune,
      .block_length = interleave.has_block_length() ? interleave.block_length() : 1,
      .num_parallel_calls = interleave.num_parallel_calls(),
      .deterministic = DeterminismFromSpec(interleave.has_deterministic(), interleave.deterministic())};
  return MakeInterleaveDataset(context.input(), std::move(fn), options);
}

}  // namespace sluice
