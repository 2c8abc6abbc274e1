// to_hash_bucket_fast, lookup, lower and normalize (text_functions.h):
// functions that map each string of a component to a value, keeping its
// shape.
#include "sluice/dataset/component_target.h"
#include "sluice/dataset/pipeline_spec.pb.h"
#include "sluice/dataset/text_functions.h"
#include "sluice/dataset/text_pieces_function.h"
#include "sluice/dataset/vocabulary_file.h"
#include "sluice/ops/string_hash.h"
#include "sluice/ops/text_normalize.h"

namespace sluice {
namespace {

using KernelFn = std::function<Result<Tensor>(const Tensor&)>;

// A function that replaces one string component (any shape) by
// kernel(component), of `out_dtype` and the same shape. Row-wise: the
// kernels work string by string.
class TextElementwiseFunction final : public ElementFunction {
 public:
  TextElementwiseFunction(std::string component, std::string name, DType out_dtype, KernelFn kernel,
                          WriteSpecFn write_spec)
      : target_(std::move(component), ComponentTarget::WhenEmpty::kOnly),
        name_(std::move(name)),
        out_dtype_(out_dtype),
        kernel_(std::move(kernel)),
        write_spec_(std::move(write_spec)) {}

  std::string name() const override { return name_; }
  Result<BoundElementFunction> Bind(const ElementSpec& input) const override {
    SLUICE_ASSIGN_OR_RETURN(std::vector<size_t> indices, target_.Resolve(name_, input));
    const size_t i = indices.front();
    if (input[i].dtype != DType::kString) {
      return InvalidArgumentError(name_, ": component ", input.DisplayName(i), " is ", input[i].dtype,
                                  input[i].shape, "; expected strings");
    }
    std::vector<ComponentSpec> components = input.components();
    components[i].dtype = out_dtype_;
    return BoundElementFunction{.output_spec = ElementSpec(std::move(components)),
                                .apply = TransformAt(name_, input, indices, kernel_),
                                .row_wise = true};
  }
  Status ToSpec(spec::ElementFunction* out) const override {
    write_spec_(target_.component(), out);
    return OkStatus();
  }

 private:
  const ComponentTarget target_;
  const std::string name_;
  const DType out_dtype_;
  const KernelFn kernel_;
  const WriteSpecFn write_spec_;
};

ElementFunctionPtr MakeElementwise(std::string component, std::string name, DType out_dtype, KernelFn kernel,
                                   WriteSpecFn write_spec) {
  return std::make_shared<TextElementwiseFunction>(std::move(component), std::move(name), out_dtype,
                                                   std::move(kernel), std::move(write_spec));
}

}  // namespace

Result<ElementFunctionPtr> MakeToHashBucketFastFunction(std::string component, int64_t num_buckets) {
  if (num_buckets < 1) {
    return InvalidArgumentError("to_hash_bucket_fast: num_buckets must be at least 1, got ", num_buckets);
  }
  std::string name = StrCat("to_hash_bucket_fast(", TextArgumentsPrefix(component), num_buckets, ")");
  return MakeElementwise(
      std::move(component), std::move(name), DType::kInt64,
      [num_buckets](const Tensor& t) { return StringToHashBucketFast(t, num_buckets); },
      [num_buckets](const std::string& component, spec::ElementFunction* out) {
        spec::ToHashBucketFast* node = out->mutable_to_hash_bucket_fast();
        node->set_component(component);
        node->set_num_buckets(num_buckets);
      });
}

Result<ElementFunctionPtr> MakeLookupFunction(std::string component, LookupOptions options) {
  if (options.num_oov_buckets < 0) {
    return InvalidArgumentError("lookup: num_oov_buckets must be >= 0, got ", options.num_oov_buckets);
  }
  Result<std::shared_ptr<const Vocabulary>> vocabulary =
      ReadVocabularyFile(options.vocabulary_file, options.max_vocabulary_bytes);
  if (!vocabulary.ok()) return vocabulary.status().WithContext("lookup");
  std::string name = StrCat("lookup(", TextArgumentsPrefix(component), "'", options.vocabulary_file, "', ",
                            (*vocabulary)->size(), " tokens, num_oov_buckets=", options.num_oov_buckets,
                            options.num_oov_buckets == 0 ? StrCat(", default_value=", options.default_value) : "",
                            ")");
  return MakeElementwise(
      std::move(component), std::move(name), DType::kInt64,
      [vocabulary = *vocabulary, options](const Tensor& t) {
        return LookupTokens(t, *vocabulary, options.num_oov_buckets, options.default_value);
      },
      [options](const std::string& component, spec::ElementFunction* out) {
        spec::Lookup* node = out->mutable_lookup();
        node->set_component(component);
        node->set_vocabulary_file(options.vocabulary_file);
        node->set_num_oov_buckets(options.num_oov_buckets);
        node->set_default_value(options.default_value);
        node->set_max_vocabulary_bytes(options.max_vocabulary_bytes);
      });
}

Result<ElementFunctionPtr> MakeLowerFunction(std::string component) {
  std::string name = StrCat("lower(", component, ")");
  return MakeElementwise(
      std::move(component), std::move(name), DType::kString, [](const Tensor& t) { return LowerUtf8(t); },
      [](const std::string& component, spec::ElementFunction* out) { out->mutable_lower()->set_component(component); });
}

Result<ElementFunctionPtr> MakeNormalizeFunction(std::string component, NormalizationForm form) {
  std::string name = StrCat("normalize(", TextArgumentsPrefix(component), NormalizationFormName(form), ")");
  return MakeElementwise(
      std::move(component), std::move(name), DType::kString, [form](const Tensor& t) { return NormalizeUtf8(t, form); },
      [form](const std::string& component, spec::ElementFunction* out) {
        spec::Normalize* node = out->mutable_normalize();
        node->set_component(component);
        node->set_form(std::string(NormalizationFormName(form)));
      });
}

Result<ElementFunctionPtr> TextElementwiseFunctionFromSpec(const spec::ElementFunction& fn) {
  switch (fn.fn_case()) {
    case spec::ElementFunction::kToHashBucketFast:
      return MakeToHashBucketFastFunction(fn.to_hash_bucket_fast().component(),
                                          fn.to_hash_bucket_fast().num_buckets());
    case spec::ElementFunction::kLookup: {
      const spec::Lookup& node = fn.lookup();
      LookupOptions options{.vocabulary_file = node.vocabulary_file()};
      if (node.has_num_oov_buckets()) options.num_oov_buckets = node.num_oov_buckets();
      if (node.has_default_value()) options.default_value = node.default_value();
      if (node.has_max_vocabulary_bytes()) options.max_vocabulary_bytes = node.max_vocabulary_bytes();
      return MakeLookupFunction(node.component(), std::move(options));
    }
    case spec::ElementFunction::kLower: return MakeLowerFunction(fn.lower().component());
    case spec::ElementFunction::kNormalize: {
      Result<NormalizationForm> form = ParseNormalizationForm(fn.normalize().form());
      if (!form.ok()) return form.status().WithContext("normalize: form");
      return MakeNormalizeFunction(fn.normalize().component(), *form);
    }
    default: break;
  }
  return InternalError("TextElementwiseFunctionFromSpec: not an elementwise text function");
}

}  // namespace sluice
