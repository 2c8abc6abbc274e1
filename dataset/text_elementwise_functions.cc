// to_hash_bucket_fast, lookup, lower, normalize and regex_replace (text_functions.h):
// functions that map each string of a component to a value, keeping its
// shape.
#include "sluice/dataset/pipeline_spec.pb.h"
#include "sluice/dataset/ram_budget.h"
#include "sluice/dataset/text_functions.h"
#include "sluice/dataset/text_function_shapes.h"
#include "sluice/dataset/vocabulary_file.h"
#include "sluice/ops/regex_replace.h"
#include "sluice/ops/string_hash.h"
#include "sluice/ops/text_normalize.h"

namespace sluice {

Result<ElementFunctionPtr> MakeToHashBucketFastFunction(std::string component, int64_t num_buckets) {
  if (num_buckets < 1) {
    return InvalidArgumentError("to_hash_bucket_fast: num_buckets must be at least 1, got ", num_buckets);
  }
  std::string name = StrCat("to_hash_bucket_fast(", TextArgumentsPrefix(component), num_buckets, ")");
  return MakeElementwiseFunction(
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
      ReadVocabularyFile(options.vocabulary_file, options.max_vocabulary_bytes, /*copies=*/1, DefaultRamBudget());
  if (!vocabulary.ok()) return vocabulary.status().WithContext("lookup");
  if (options.num_oov_buckets > INT64_MAX - (*vocabulary)->size()) {
    return InvalidArgumentError("lookup: num_oov_buckets ", options.num_oov_buckets, " beside ", (*vocabulary)->size(),
                                " tokens gives ids past the int64 maximum");
  }
  std::string name = StrCat("lookup(", TextArgumentsPrefix(component), "'", options.vocabulary_file, "', ",
                            (*vocabulary)->size(), " tokens, num_oov_buckets=", options.num_oov_buckets,
                            options.num_oov_buckets == 0 ? StrCat(", default_value=", options.default_value) : "",
                            ")");
  return MakeElementwiseFunction(
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
      },
      (*vocabulary)->bytes());
}

Result<ElementFunctionPtr> MakeLowerFunction(std::string component) {
  std::string name = StrCat("lower(", component, ")");
  return MakeElementwiseFunction(
      std::move(component), std::move(name), DType::kString, [](const Tensor& t) { return LowerUtf8(t); },
      [](const std::string& component, spec::ElementFunction* out) { out->mutable_lower()->set_component(component); });
}

Result<ElementFunctionPtr> MakeNormalizeFunction(std::string component, NormalizationForm form) {
  std::string name = StrCat("normalize(", TextArgumentsPrefix(component), NormalizationFormName(form), ")");
  return MakeElementwiseFunction(
      std::move(component), std::move(name), DType::kString, [form](const Tensor& t) { return NormalizeUtf8(t, form); },
      [form](const std::string& component, spec::ElementFunction* out) {
        spec::Normalize* node = out->mutable_normalize();
        node->set_component(component);
        node->set_form(std::string(NormalizationFormName(form)));
      });
}

Result<ElementFunctionPtr> MakeRegexReplaceFunction(std::string component, std::string pattern, std::string rewrite,
                                                    bool replace_global) {
  SLUICE_ASSIGN_OR_RETURN(RegexReplacer replacer, RegexReplacer::Make(pattern, rewrite, replace_global));
  std::string name = StrCat("regex_replace(", TextArgumentsPrefix(component), "'", pattern, "', '", rewrite, "'",
                            replace_global ? "" : ", first", ")");
  return MakeElementwiseFunction(
      std::move(component), std::move(name), DType::kString,
      [replacer = std::move(replacer)](const Tensor& t) { return replacer.Replace(t); },
      [pattern = std::move(pattern), rewrite = std::move(rewrite), replace_global](const std::string& component,
                                                                                   spec::ElementFunction* out) {
        spec::RegexReplace* node = out->mutable_regex_replace();
        node->set_component(component);
        node->set_pattern(pattern);
        node->set_rewrite(rewrite);
        if (!replace_global) node->set_replace_global(false);
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
    case spec::ElementFunction::kRegexReplace: {
      const spec::RegexReplace& node = fn.regex_replace();
      return MakeRegexReplaceFunction(node.component(), node.pattern(), node.rewrite(),
                                      !node.has_replace_global() || node.replace_global());
    }
    default: break;
  }
  return InternalError("TextElementwiseFunctionFromSpec: not an elementwise text function");
}

}  // namespace sluice
