#include "sluice/dataset/group_by_window_dataset.h"

#include <limits>
#include <map>

#include "sluice/dataset/builtin_functions.h"
#include "sluice/dataset/buffered_bytes.h"
#include "sluice/dataset/iterator_state.h"
#include "sluice/dataset/op_spec.h"
#include "sluice/dataset/pipeline_spec.pb.h"
#include "sluice/dataset/pipeline_spec_io.h"
#include "sluice/dataset/window_dataset.h"

namespace sluice {
namespace {

constexpr std::string_view kOp = "group_by_window";

// A function of an element returning an int64 scalar: the key, or a window size.
using Int64Fn = std::function<Result<int64_t>(const Element&)>;

// tf.data's messages for a key_func or window_size_func of another output.
std::string ScalarInt64Message(std::string_view tf_name) { return StrCat("`", tf_name, "` must return a scalar int64."); }

// `fn` bound to `input`, whose output must be one int64 scalar; `tf_name`
// ("key_func") names it in errors.
Result<Int64Fn> BindInt64Fn(const ElementFunction& fn, const ElementSpec& input, std::string_view tf_name) {
  Result<BoundElementFunction> bound = fn.Bind(input);
  if (!bound.ok()) return bound.status().WithContext(StrCat(kOp, ": ", tf_name));
  const ElementSpec& out = bound->output_spec;
  if (out.size() != 1 || out[0].dtype != DType::kInt64 || !out[0].shape.IsCompatibleWith(PartialShape(Shape{}))) {
    return InvalidArgumentError(kOp, ": ", ScalarInt64Message(tf_name), " (", fn.name(), " returns ", out, ")");
  }
  return Int64Fn([apply = std::move(bound->apply), message = ScalarInt64Message(tf_name),
                  name = fn.name()](const Element& element) -> Result<int64_t> {
    Result<Element> out = apply(element);
    if (!out.ok()) return out.status().WithContext(StrCat(kOp, ": ", name));
    if (out->size() != 1 || (*out)[0].dtype() != DType::kInt64 || (*out)[0].rank() != 0) {
      return InvalidArgumentError(kOp, ": ", message);
    }
    return (*out)[0].scalar<int64_t>();
  });
}

Result<Int64Fn> BindKey(const GroupByWindowOptions& o, const ElementSpec& input) {
  if ((o.key_fn != nullptr) == !o.key_component.empty()) {
    return InvalidArgumentError(kOp, ": give exactly one of key_fn and key_component");
  }
  if (o.key_fn != nullptr) return BindInt64Fn(*o.key_fn, input, "key_func");
  Result<size_t> index = input.IndexOf(o.key_component);
  if (!index.ok()) return index.status().WithContext(StrCat(kOp, ": key_component"));
  if (input[*index].dtype != DType::kInt64 || !input[*index].shape.IsCompatibleWith(PartialShape(Shape{}))) {
    return InvalidArgumentError(kOp, ": key_component ", input.DisplayName(*index), " is ", input[*index].dtype,
                                input[*index].shape, "; the key is an int64 scalar");
  }
  return Int64Fn([i = *index](const Element& element) -> Result<int64_t> {
    if (element[i].rank() != 0) return InvalidArgumentError(kOp, ": ", ScalarInt64Message("key_func"));
    return element[i].scalar<int64_t>();
  });
}

class GroupByWindowDataset final : public Dataset {
 public:
  GroupByWindowDataset(DatasetPtr input, GroupByWindowOptions options, Int64Fn key, Int64Fn window_size,
                       ElementSpec window_spec, ElementSpec spec)
      : Dataset(std::move(spec), input->cardinality() == 0 ? 0 : kUnknownCardinality),
        input_(std::move(input)),
        options_(std::move(options)),
        key_(std::move(key)),
        window_size_(std::move(window_size)),
        window_spec_(std::move(window_spec)) {}

  std::string_view op_name() const override { return kOp; }
  std::string DebugParams() const override {
    return StrCat("key=", options_.key_fn != nullptr ? options_.key_fn->name() : options_.key_component,
                  ", reduce_fn=", options_.reduce_fn->name(), ", window_size=",
                  options_.window_size ? std::to_string(*options_.window_size) : options_.window_size_fn->name(),
                  ", max_open_groups=", options_.max_open_groups, ", key_name=", options_.key_name);
  }
  std::vector<DatasetPtr> inputs() const override { return {input_}; }
  std::unique_ptr<Iterator> NewIteratorInternal(const IteratorContext& ctx) const override;
  Status ToSpec(spec::Pipeline* pipeline) const override {
    SLUICE_RETURN_IF_ERROR(input_->ToSpec(pipeline));
    spec::GroupByWindow node;
    if (options_.key_fn != nullptr) {
      SLUICE_RETURN_IF_ERROR(options_.key_fn->ToSpec(node.mutable_key_fn()));
    } else {
      node.set_key_component(options_.key_component);
    }
    SLUICE_RETURN_IF_ERROR(options_.reduce_fn->ToSpec(node.mutable_reduce_fn()));
    if (options_.window_size) {
      node.set_window_size(*options_.window_size);
    } else {
      SLUICE_RETURN_IF_ERROR(options_.window_size_fn->ToSpec(node.mutable_window_size_fn()));
    }
    node.set_max_open_groups(options_.max_open_groups);
    node.set_key_name(options_.key_name);
    *pipeline->add_ops()->mutable_group_by_window() = std::move(node);
    return OkStatus();
  }

  const DatasetPtr& input() const { return input_; }
  const GroupByWindowOptions& options() const { return options_; }
  const Int64Fn& key() const { return key_; }
  const ElementSpec& window_spec() const { return window_spec_; }

  // The window size of a group's key: window_size, or window_size_fn's.
  Result<int64_t> WindowSize(int64_t key) const {
    if (options_.window_size) return *options_.window_size;
    SLUICE_ASSIGN_OR_RETURN(int64_t size, window_size_(Element{Tensor::Scalar<int64_t>(key)}));
    if (size <= 0) {
      return InvalidArgumentError(kOp, ": Window size must be greater than zero, but got ", size, ".");
    }
    return size;
  }

  // reduce_fn's dataset for `window`, checked against the declared spec.
  Result<DatasetPtr> Reduce(const Element& window) const {
    Result<DatasetPtr> dataset = options_.reduce_fn->Apply(window);
    if (!dataset.ok()) return dataset.status().WithContext(StrCat(kOp, "(", options_.reduce_fn->name(), ")"));
    if (!element_spec().IsCompatibleWith((*dataset)->element_spec())) {
      return InvalidArgumentError(kOp, ": reduce_fn returned a dataset with element spec ",
                                  (*dataset)->element_spec(), " but its declared spec is ", element_spec());
    }
    return dataset;
  }

 private:
  const DatasetPtr input_;
  const GroupByWindowOptions options_;
  const Int64Fn key_;          // bound to input_'s spec
  const Int64Fn window_size_;  // window_size_fn's, bound; null with window_size
  const ElementSpec window_spec_;
};

class GroupByWindowIterator final : public Iterator {
 public:
  GroupByWindowIterator(std::shared_ptr<const GroupByWindowDataset> dataset, const IteratorContext& ctx)
      : dataset_(std::move(dataset)), ctx_(ctx), input_(dataset_->input()->NewIterator(ctx)) {}

  ~GroupByWindowIterator() override { ctx_.runtime->ram_budget().Release(charged_); }

 protected:
  Result<std::optional<Element>> GetNextInternal() override {
    while (true) {
      if (reducing_ != nullptr) {
        SLUICE_ASSIGN_OR_RETURN(std::optional<Element> element, reducing_->GetNext());
        if (element) return element;
        reducing_.reset();
        reduced_window_ = Element();
      }
      if (!end_of_input_) {
        SLUICE_ASSIGN_OR_RETURN(std::optional<Element> element, input_->GetNext());
        if (!element) {
          end_of_input_ = true;
          continue;
        }
        SLUICE_ASSIGN_OR_RETURN(const int64_t key, dataset_->key()(*element));
        SLUICE_ASSIGN_OR_RETURN(Group * group, FindOrOpen(key));
        SLUICE_RETURN_IF_ERROR(Hold(key, *group, *std::move(element)));
        if (static_cast<int64_t>(group->rows.size()) == group->window_size) SLUICE_RETURN_IF_ERROR(StartReducing(key));
        continue;
      }
      if (groups_.empty()) return std::nullopt;
      SLUICE_RETURN_IF_ERROR(StartReducing(groups_.begin()->first));
    }
  }

  Status SaveInternal(IteratorStateWriter& writer) override {
    writer.WriteBool("end_of_input", end_of_input_);
    writer.WriteInt("groups/size", static_cast<int64_t>(groups_.size()));
    int64_t g = 0;
    for (const auto& [key, group] : groups_) {
      const std::string prefix = StrCat("groups/", g++);
      writer.WriteInt(prefix + "/key", key);
      writer.WriteInt(prefix + "/window_size", group.window_size);
      writer.WriteInt(prefix + "/rows", static_cast<int64_t>(group.rows.size()));
      for (size_t i = 0; i < group.rows.size(); ++i) writer.WriteElement(StrCat(prefix, "/", i), group.rows[i]);
    }
    writer.WriteBool("reducing", reducing_ != nullptr);
    if (reducing_ != nullptr) {
      writer.WriteElement("reducing/window", reduced_window_);
      SLUICE_RETURN_IF_ERROR(writer.WriteIterator("reducing/iterator", *reducing_));
    }
    return writer.WriteIterator("input", *input_);
  }
  Status RestoreInternal(IteratorStateReader& reader) override {
    SLUICE_ASSIGN_OR_RETURN(end_of_input_, reader.ReadBool("end_of_input"));
    const GroupByWindowOptions& o = dataset_->options();
    SLUICE_ASSIGN_OR_RETURN(const int64_t groups, reader.ReadInt("groups/size", 0, o.max_open_groups));
    const ElementSpec& spec = dataset_->input()->element_spec();
    for (int64_t g = 0; g < groups; ++g) {
      const std::string prefix = StrCat("groups/", g);
      SLUICE_ASSIGN_OR_RETURN(const int64_t key, reader.ReadInt(prefix + "/key"));
      SLUICE_ASSIGN_OR_RETURN(const int64_t window_size,
                              reader.ReadInt(prefix + "/window_size", 1, std::numeric_limits<int64_t>::max()));
      // A full group is reduced at once: a saved one holds fewer rows.
      SLUICE_ASSIGN_OR_RETURN(const int64_t rows, reader.ReadInt(prefix + "/rows", 1, window_size - 1));
      Group& group = groups_[key];
      group.window_size = window_size;
      for (int64_t i = 0; i < rows; ++i) {
        SLUICE_ASSIGN_OR_RETURN(Element element, reader.ReadElement(StrCat(prefix, "/", i), spec));
        // The saved iterator held it within the budget: restored, it is charged even past it.
        const int64_t bytes = BufferedBytes(element);
        ctx_.runtime->ram_budget().Add(bytes);
        charged_ += bytes;
        group.bytes += bytes;
        group.rows.push_back(std::move(element));
      }
    }
    SLUICE_ASSIGN_OR_RETURN(const bool reducing, reader.ReadBool("reducing"));
    if (reducing) {
      SLUICE_ASSIGN_OR_RETURN(reduced_window_, reader.ReadElement("reducing/window", dataset_->window_spec()));
      SLUICE_ASSIGN_OR_RETURN(DatasetPtr reduced, dataset_->Reduce(reduced_window_));
      reducing_ = reduced->NewIterator(ctx_);
      SLUICE_RETURN_IF_ERROR(reader.ReadIterator("reducing/iterator", *reducing_));
    }
    return reader.ReadIterator("input", *input_);
  }

 private:
  struct Group {
    int64_t window_size = 0;
    std::vector<Element> rows;
    int64_t bytes = 0;  // of rows, charged to the RAM budget
  };

  // The open group of `key`, or a new one (its window size found now).
  Result<Group*> FindOrOpen(int64_t key) {
    auto it = groups_.find(key);
    if (it != groups_.end()) return &it->second;
    const int64_t limit = dataset_->options().max_open_groups;
    if (static_cast<int64_t>(groups_.size()) >= limit) {
      return ResourceExhaustedError(kOp, ": an element of key ", key, " would open a group beside the ", limit,
                                    " open ones (max_open_groups = ", limit, ")");
    }
    SLUICE_ASSIGN_OR_RETURN(const int64_t window_size, dataset_->WindowSize(key));
    Group& group = groups_[key];
    group.window_size = window_size;
    return &group;
  }

  // Adds `element` to `group`, charging it to the RAM budget. A group left
  // empty (its first element didn't fit) is closed.
  Status Hold(int64_t key, Group& group, Element element) {
    const int64_t bytes = BufferedBytes(element);
    if (!ctx_.runtime->ram_budget().TryAdd(bytes)) {
      if (group.rows.empty()) groups_.erase(key);
      return ResourceExhaustedError(kOp, ": holding an element of ", bytes, " bytes beside the ", charged_,
                                    " bytes in the groups would pass the RAM budget of ",
                                    ctx_.runtime->ram_budget().limit(), " bytes");
    }
    charged_ += bytes;
    group.bytes += bytes;
    group.rows.push_back(std::move(element));
    return OkStatus();
  }

  // Closes the group of `key` and starts emitting its window's dataset.
  Status StartReducing(int64_t key) {
    auto it = groups_.find(key);
    Group group = std::move(it->second);
    groups_.erase(it);
    ctx_.runtime->ram_budget().Release(group.bytes);
    charged_ -= group.bytes;
    const int64_t rows = static_cast<int64_t>(group.rows.size());
    SLUICE_ASSIGN_OR_RETURN(Element window, StackWindow(kOp, group.rows, ctx_.runtime->ram_budget().limit()));
    window.components.push_back(Tensor::FromVector(std::vector<int64_t>(static_cast<size_t>(rows), key)));
    SLUICE_ASSIGN_OR_RETURN(DatasetPtr reduced, dataset_->Reduce(window));
    reducing_ = reduced->NewIterator(ctx_);
    reduced_window_ = std::move(window);
    return OkStatus();
  }

  const std::shared_ptr<const GroupByWindowDataset> dataset_;
  const IteratorContext ctx_;
  const std::unique_ptr<Iterator> input_;
  std::map<int64_t, Group> groups_;     // the open groups, by key (ascending: tf.data's end order)
  std::unique_ptr<Iterator> reducing_;  // the dataset of the window being emitted
  Element reduced_window_;              // that window, for a restore to reduce again
  int64_t charged_ = 0;                 // the groups' bytes
  bool end_of_input_ = false;
};

std::unique_ptr<Iterator> GroupByWindowDataset::NewIteratorInternal(const IteratorContext& ctx) const {
  return std::make_unique<GroupByWindowIterator>(SharedThis<GroupByWindowDataset>(), ctx);
}

}  // namespace

Result<ElementSpec> GroupWindowSpec(const ElementSpec& input, const std::string& key_name) {
  if (key_name.empty()) return InvalidArgumentError(kOp, ": key_name is empty");
  for (size_t i = 0; i < input.size(); ++i) {
    if (input.DisplayName(i) == key_name) {
      return InvalidArgumentError(kOp, ": the input has a component named '", key_name, "' in ", input,
                                  ", the name of the window's key column; choose another key_name");
    }
  }
  SLUICE_ASSIGN_OR_RETURN(ElementSpec rows, WindowSpec(kOp, input, kUnknownDim));
  std::vector<ComponentSpec> components = rows.components();
  components.push_back({key_name, DType::kInt64, PartialShape({kUnknownDim})});
  return ElementSpec(std::move(components));
}

Result<DatasetPtr> MakeGroupByWindowDataset(DatasetPtr input, GroupByWindowOptions options) {
  if (input == nullptr) return InvalidArgumentError(kOp, ": input dataset is null");
  if (options.reduce_fn == nullptr) return InvalidArgumentError(kOp, ": reduce_fn is null");
  if (options.window_size.has_value() == (options.window_size_fn != nullptr)) {
    return InvalidArgumentError(
        kOp, ": Either the `window_size` argument or the `window_size_func` argument must be specified.");
  }
  if (options.window_size && *options.window_size <= 0) {
    return InvalidArgumentError(kOp, ": Window size must be greater than zero, but got ", *options.window_size, ".");
  }
  if (options.max_open_groups <= 0) {
    return InvalidArgumentError(kOp, ": max_open_groups must be greater than zero (got ", options.max_open_groups,
                                ")");
  }
  const ElementSpec& in = input->element_spec();
  SLUICE_ASSIGN_OR_RETURN(Int64Fn key, BindKey(options, in));
  Int64Fn window_size;
  if (options.window_size_fn != nullptr) {
    SLUICE_ASSIGN_OR_RETURN(window_size, BindInt64Fn(*options.window_size_fn,
                                                     ElementSpec{{options.key_name, DType::kInt64, Shape{}}},
                                                     "window_size_func"));
  }
  SLUICE_ASSIGN_OR_RETURN(ElementSpec window_spec, GroupWindowSpec(in, options.key_name));
  Result<ElementSpec> spec = options.reduce_fn->OutputSpec(window_spec);
  if (!spec.ok()) return spec.status().WithContext(StrCat(kOp, "(", options.reduce_fn->name(), ")"));
  return Dataset::Make<GroupByWindowDataset>(std::move(input), std::move(options), std::move(key),
                                             std::move(window_size), std::move(window_spec), *std::move(spec));
}

Result<DatasetPtr> GroupByWindowDatasetFromSpec(const spec::DatasetNode& node, const OpSpecContext& context) {
  const spec::GroupByWindow& group = node.group_by_window();
  GroupByWindowOptions options{.key_component = group.key_component(),
                               .max_open_groups = group.has_max_open_groups() ? group.max_open_groups()
                                                                               : kDefaultMaxOpenGroups,
                               .key_name = group.has_key_name() ? group.key_name() : "key"};
  if (group.has_key_fn()) {
    SLUICE_ASSIGN_OR_RETURN(options.key_fn, WithContext(ElementFunctionFromSpec(group.key_fn()), "key_fn"));
  }
  if (group.has_window_size()) options.window_size = group.window_size();
  if (group.has_window_size_fn()) {
    SLUICE_ASSIGN_OR_RETURN(options.window_size_fn,
                            WithContext(ElementFunctionFromSpec(group.window_size_fn()), "window_size_fn"));
  }
  if (!group.has_reduce_fn()) return InvalidArgumentError("group_by_window has no reduce_fn");
  SLUICE_ASSIGN_OR_RETURN(ElementSpec window_spec, GroupWindowSpec(context.input()->element_spec(), options.key_name));
  SLUICE_ASSIGN_OR_RETURN(options.reduce_fn,
                          WithContext(MakeSpecDatasetFunction(group.reduce_fn(), window_spec), "reduce_fn"));
  return MakeGroupByWindowDataset(context.input(), std::move(options));
}

}  // namespace sluice
