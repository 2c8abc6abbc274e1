#include "sluice/dataset/unique_dataset.h"

#include <unordered_set>

#include "sluice/dataset/iterator_state.h"
#include "sluice/dataset/op_spec.h"
#include "sluice/dataset/pipeline_spec.pb.h"
#include "sluice/dataset/ram_budget.h"

namespace sluice {
namespace {

// The bytes that identify a tensor of int32, int64 or string: its dims,
// then its values (strings with their lengths), so that equal keys mean
// equal shapes and values.
std::string KeyOf(const Tensor& t) {
  std::string key;
  auto append = [&key](const void* bytes, size_t size) { key.append(static_cast<const char*>(bytes), size); };
  const int64_t rank = t.rank();
  append(&rank, sizeof(rank));
  for (int64_t d : t.shape().dims()) append(&d, sizeof(d));
  if (t.dtype() == DType::kString) {
    const TString* values = t.data<TString>();
    for (int64_t i = 0; i < t.NumElements(); ++i) {
      const uint64_t size = values[i].size();
      append(&size, sizeof(size));
      append(values[i].data(), size);
    }
  } else {
    append(t.raw_data(), t.NumBytes());
  }
  return key;
}

class UniqueDataset final : public Dataset {
 public:
  explicit UniqueDataset(DatasetPtr input)
      : Dataset(input->element_spec(), kUnknownCardinality), input_(std::move(input)) {}

  std::string_view op_name() const override { return "unique"; }
  std::string DebugParams() const override { return ""; }
  std::vector<DatasetPtr> inputs() const override { return {input_}; }
  std::unique_ptr<Iterator> NewIteratorInternal(const IteratorContext& ctx) const override;
  Status ToSpec(spec::Pipeline* pipeline) const override {
    SLUICE_RETURN_IF_ERROR(input_->ToSpec(pipeline));
    pipeline->add_ops()->mutable_unique();
    return OkStatus();
  }

  const DatasetPtr& input() const { return input_; }

 private:
  const DatasetPtr input_;
};

class UniqueIterator final : public Iterator {
 public:
  UniqueIterator(std::shared_ptr<const UniqueDataset> dataset, const IteratorContext& ctx)
      : dataset_(std::move(dataset)), input_(dataset_->input()->NewIterator(ctx)), runtime_(ctx.runtime) {}

  ~UniqueIterator() override { runtime_->ram_budget().Release(charged_); }

 protected:
  Result<std::optional<Element>> GetNextInternal() override {
    while (true) {
      SLUICE_ASSIGN_OR_RETURN(std::optional<Element> element, input_->GetNext());
      if (!element) return std::nullopt;
      std::string key = KeyOf((*element)[0]);
      if (seen_.contains(key)) continue;
      const int64_t bytes = static_cast<int64_t>(key.size());
      if (!runtime_->ram_budget().TryAdd(bytes)) {
        return ResourceExhaustedError("unique: remembering a new element of ", bytes, " bytes beside the ",
                                      seen_.size(), " seen (", charged_, " bytes) would pass the RAM budget of ",
                                      runtime_->ram_budget().limit(), " bytes");
      }
      charged_ += bytes;
      seen_.insert(std::move(key));
      return element;
    }
  }

  Status SaveInternal(IteratorStateWriter& writer) override {
    writer.WriteInt("seen/size", static_cast<int64_t>(seen_.size()));
    int64_t i = 0;
    for (const std::string& key : seen_) writer.WriteString(StrCat("seen/", i++), key);
    return writer.WriteIterator("input", *input_);
  }
  Status RestoreInternal(IteratorStateReader& reader) override {
    SLUICE_ASSIGN_OR_RETURN(const int64_t size, reader.ReadInt("seen/size", 0, INT64_MAX));
    for (int64_t i = 0; i < size; ++i) {
      SLUICE_ASSIGN_OR_RETURN(std::string key, reader.ReadString(StrCat("seen/", i)));
      const int64_t bytes = static_cast<int64_t>(key.size());
      if (seen_.insert(std::move(key)).second) {
        runtime_->ram_budget().Add(bytes);
        charged_ += bytes;
      }
    }
    return reader.ReadIterator("input", *input_);
  }

 private:
  const std::shared_ptr<const UniqueDataset> dataset_;
  const std::unique_ptr<Iterator> input_;
  const std::shared_ptr<Runtime> runtime_;  // whose RAM budget holds seen_
  std::unordered_set<std::string> seen_;    // KeyOf every element returned
  int64_t charged_ = 0;                     // bytes of seen_ charged to the budget
};

std::unique_ptr<Iterator> UniqueDataset::NewIteratorInternal(const IteratorContext& ctx) const {
  return std::make_unique<UniqueIterator>(SharedThis<UniqueDataset>(), ctx);
}

}  // namespace

Result<DatasetPtr> MakeUniqueDataset(DatasetPtr input) {
  if (input == nullptr) return InvalidArgumentError("unique: input dataset is null");
  const ElementSpec& spec = input->element_spec();
  if (spec.size() != 1) {
    return InvalidArgumentError("unique: UniqueDataset only supports inputs with a single component; got ", spec);
  }
  const DType dtype = spec[0].dtype;
  if (dtype != DType::kInt32 && dtype != DType::kInt64 && dtype != DType::kString) {
    return InvalidArgumentError(
        "unique: UniqueDataset only supports inputs with a single `tf.int32`, `tf.int64`, or `tf.string` "
        "component; got ",
        spec);
  }
  return Dataset::Make<UniqueDataset>(std::move(input));
}

Result<DatasetPtr> UniqueDatasetFromSpec(const spec::DatasetNode&, const OpSpecContext& context) {
  return MakeUniqueDataset(context.input());
}

}  // namespace sluice
