#include "sluice/dataset/shard_dataset.h"

#include "sluice/dataset/iterator_state.h"
#include "sluice/dataset/op_spec.h"
#include "sluice/dataset/pipeline_spec.pb.h"

namespace sluice {
namespace {

int64_t ShardedCardinality(int64_t n, const ShardOptions& o) {
  if (n < 0) return n;
  return n / o.num_shards + (o.index < n % o.num_shards ? 1 : 0);
}

class ShardDataset final : public Dataset {
 public:
  ShardDataset(DatasetPtr input, ShardOptions options)
      : Dataset(input->element_spec(), ShardedCardinality(input->cardinality(), options)),
        input_(std::move(input)),
        options_(options) {}

  std::string_view op_name() const override { return "shard"; }
  std::string DebugParams() const override {
    return StrCat("num_shards=", options_.num_shards, ", index=", options_.index);
  }
  std::vector<DatasetPtr> inputs() const override { return {input_}; }
  std::unique_ptr<Iterator> NewIteratorInternal(const IteratorContext& ctx) const override;
  Status ToSpec(spec::Pipeline* pipeline) const override {
    SLUICE_RETURN_IF_ERROR(input_->ToSpec(pipeline));
    auto* node = pipeline->add_ops()->mutable_shard();
    node->set_num_shards(options_.num_shards);
    node->set_index(options_.index);
    return OkStatus();
  }

  const DatasetPtr& input() const { return input_; }
  const ShardOptions& options() const { return options_; }

 private:
  const DatasetPtr input_;
  const ShardOptions options_;
};

// Every input position counts, errors included: an error at a position of
// another shard is that shard's to report, so each error surfaces once
// across all shards.
class ShardIterator final : public Iterator {
 public:
  ShardIterator(std::shared_ptr<const ShardDataset> dataset, const IteratorContext& ctx)
      : dataset_(std::move(dataset)), input_(dataset_->input()->NewIterator(ctx)) {}

 protected:
  Result<std::optional<Element>> GetNextInternal() override {
    const ShardOptions& o = dataset_->options();
    while (true) {
      Result<std::optional<Element>> next = input_->GetNext();
      if (next.ok() && !next->has_value()) return std::nullopt;
      const int64_t position = position_++;
      if (position % o.num_shards == o.index || TraversalCancelled()) return next;
    }
  }

  Status SaveInternal(IteratorStateWriter& writer) override {
    writer.WriteInt("position", position_);
    return writer.WriteIterator("input", *input_);
  }
  Status RestoreInternal(IteratorStateReader& reader) override {
    SLUICE_ASSIGN_OR_RETURN(position_, reader.ReadInt("position", 0, std::numeric_limits<int64_t>::max()));
    return reader.ReadIterator("input", *input_);
  }

 private:
  const std::shared_ptr<const ShardDataset> dataset_;
  const std::unique_ptr<Iterator> input_;
  int64_t position_ = 0;
};

std::unique_ptr<Iterator> ShardDataset::NewIteratorInternal(const IteratorContext& ctx) const {
  return std::make_unique<ShardIterator>(SharedThis<ShardDataset>(), ctx);
}

}  // namespace

Result<DatasetPtr> MakeShardDataset(DatasetPtr input, ShardOptions options) {
  if (input == nullptr) return InvalidArgumentError("shard: input dataset is null");
  if (options.num_shards <= 0) {
    return InvalidArgumentError("shard: Number of shards must be greater than zero (currently num_shards = ",
                                options.num_shards, ").");
  }
  if (options.index < 0 || options.index >= options.num_shards) {
    return InvalidArgumentError("shard: Index must be between 0 and ", options.num_shards - 1,
                                " (currently index = ", options.index, ").");
  }
  return Dataset::Make<ShardDataset>(std::move(input), options);
}

Result<DatasetPtr> ShardDatasetFromSpec(const spec::DatasetNode& node, const OpSpecContext& context) {
  return MakeShardDataset(context.input(), {.num_shards = node.shard().num_shards(), .index = node.shard().index()});
}

}  // namespace sluice
