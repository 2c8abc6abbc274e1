// split_whitespace and regex_split (text_functions.h).
#include "sluice/dataset/pipeline_spec.pb.h"
#include "sluice/dataset/text_functions.h"
#include "sluice/dataset/text_pieces_function.h"
#include "sluice/ops/text_split.h"

namespace sluice {
namespace {

Result<Pieces> AsPieces(Result<SplitTokens> split) {
  if (!split.ok()) return split.status();
  return Pieces{.flat = {std::move(split->values)}, .row_lengths = std::move(split->row_lengths)};
}

}  // namespace

Result<ElementFunctionPtr> MakeSplitWhitespaceFunction(std::string component) {
  std::string name = StrCat("split_whitespace(", component, ")");
  return MakePiecesFunction(
      std::move(component), std::move(name), {}, [](const Tensor& t) { return AsPieces(SplitWhitespace(t)); },
      [](const std::string& component, spec::ElementFunction* out) {
        out->mutable_split_whitespace()->set_component(component);
      });
}

Result<ElementFunctionPtr> MakeRegexSplitFunction(std::string component, std::string pattern) {
  SLUICE_ASSIGN_OR_RETURN(RegexSplitter splitter, RegexSplitter::Make(pattern));
  std::string name = StrCat("regex_split(", TextArgumentsPrefix(component), "'", pattern, "')");
  return MakePiecesFunction(
      std::move(component), std::move(name), {},
      [splitter = std::move(splitter)](const Tensor& t) { return AsPieces(splitter.Split(t)); },
      [pattern = std::move(pattern)](const std::string& component, spec::ElementFunction* out) {
        spec::RegexSplit* node = out->mutable_regex_split();
        node->set_component(component);
        node->set_pattern(pattern);
      });
}

Result<ElementFunctionPtr> TextSplitFunctionFromSpec(const spec::ElementFunction& fn) {
  switch (fn.fn_case()) {
    case spec::ElementFunction::kSplitWhitespace: return MakeSplitWhitespaceFunction(fn.split_whitespace().component());
    case spec::ElementFunction::kRegexSplit:
      return MakeRegexSplitFunction(fn.regex_split().component(), fn.regex_split().pattern());
    default: break;
  }
  return InternalError("TextSplitFunctionFromSpec: not a text splitter");
}

}  // namespace sluice
