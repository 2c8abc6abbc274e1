// split_whitespace, regex_split and wordpiece (text_functions.h): strings
// cut into pieces.
#include "sluice/dataset/pipeline_spec.pb.h"
#include "sluice/dataset/ram_budget.h"
#include "sluice/dataset/text_functions.h"
#include "sluice/dataset/text_function_shapes.h"
#include "sluice/dataset/vocabulary_file.h"
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

Result<ElementFunctionPtr> MakeRegexSplitFunction(std::string component, std::string pattern,
                                                  std::string keep_delim_pattern) {
  SLUICE_ASSIGN_OR_RETURN(RegexSplitter splitter, RegexSplitter::Make(pattern, keep_delim_pattern));
  std::string name = StrCat("regex_split(", TextArgumentsPrefix(component), "'", pattern, "'",
                            keep_delim_pattern.empty() ? "" : StrCat(", keep='", keep_delim_pattern, "'"), ")");
  return MakePiecesFunction(
      std::move(component), std::move(name), {},
      [splitter = std::move(splitter)](const Tensor& t) { return AsPieces(splitter.Split(t)); },
      [pattern = std::move(pattern), keep = std::move(keep_delim_pattern)](const std::string& component,
                                                                           spec::ElementFunction* out) {
        spec::RegexSplit* node = out->mutable_regex_split();
        node->set_component(component);
        node->set_pattern(pattern);
        node->set_keep_delim_pattern(keep);
      });
}

// The vocabulary's table and the tokenizer's own index of its tokens
// (ops/wordpiece.h), about as large.
constexpr int64_t kWordpieceTableCopies = 2;

Result<ElementFunctionPtr> MakeWordpieceFunction(std::string component, WordpieceFunctionOptions options) {
  Result<std::shared_ptr<const Vocabulary>> vocabulary =
      ReadVocabularyFile(options.vocabulary_file, options.max_vocabulary_bytes, kWordpieceTableCopies,
                         DefaultRamBudget());
  if (!vocabulary.ok()) return vocabulary.status().WithContext("wordpiece");
  SLUICE_ASSIGN_OR_RETURN(WordpieceTokenizer tokenizer, WordpieceTokenizer::Make(*vocabulary, options.tokenizer));
  const WordpieceOptions& t = options.tokenizer;
  std::string name = StrCat("wordpiece(", TextArgumentsPrefix(component), "'", options.vocabulary_file, "', ",
                            (*vocabulary)->size(), " tokens, suffix='", t.suffix_indicator,
                            "', max_bytes_per_word=", t.max_bytes_per_word,
                            t.max_chars_per_token > 0 ? StrCat(", max_chars_per_token=", t.max_chars_per_token) : "",
                            ", unknown='", t.unknown_token, "'", options.tokens ? ", tokens" : ", ids",
                            options.with_offsets ? ", with_offsets" : "", ")");
  PiecesLayout layout{.values_dtype = options.tokens ? DType::kString : DType::kInt64};
  if (options.with_offsets) layout.companions = {"start_offsets", "end_offsets"};
  const WordpieceOutputs outputs{.ids = !options.tokens, .tokens = options.tokens, .offsets = options.with_offsets};
  return MakePiecesFunction(
      std::move(component), std::move(name), std::move(layout),
      [tokenizer = std::move(tokenizer), outputs](const Tensor& t) -> Result<Pieces> {
        SLUICE_ASSIGN_OR_RETURN(Wordpieces pieces, tokenizer.Tokenize(t, outputs));
        Pieces out{.flat = {outputs.tokens ? std::move(pieces.tokens) : std::move(pieces.ids)},
                   .row_lengths = std::move(pieces.row_lengths)};
        if (outputs.offsets) {
          out.flat.push_back(std::move(pieces.start_offsets));
          out.flat.push_back(std::move(pieces.end_offsets));
        }
        return out;
      },
      [options](const std::string& component, spec::ElementFunction* out) {
        spec::Wordpiece* node = out->mutable_wordpiece();
        node->set_component(component);
        node->set_vocabulary_file(options.vocabulary_file);
        node->set_suffix_indicator(options.tokenizer.suffix_indicator);
        node->set_max_bytes_per_word(options.tokenizer.max_bytes_per_word);
        node->set_max_chars_per_token(options.tokenizer.max_chars_per_token);
        node->set_unknown_token(options.tokenizer.unknown_token);
        node->set_tokens(options.tokens);
        node->set_with_offsets(options.with_offsets);
        node->set_max_vocabulary_bytes(options.max_vocabulary_bytes);
      },
      kWordpieceTableCopies * (*vocabulary)->bytes());
}

Result<ElementFunctionPtr> TextSplitFunctionFromSpec(const spec::ElementFunction& fn) {
  switch (fn.fn_case()) {
    case spec::ElementFunction::kSplitWhitespace: return MakeSplitWhitespaceFunction(fn.split_whitespace().component());
    case spec::ElementFunction::kRegexSplit:
      return MakeRegexSplitFunction(fn.regex_split().component(), fn.regex_split().pattern(),
                                    fn.regex_split().keep_delim_pattern());
    case spec::ElementFunction::kWordpiece: {
      const spec::Wordpiece& node = fn.wordpiece();
      WordpieceFunctionOptions options{.vocabulary_file = node.vocabulary_file(),
                                       .tokens = node.tokens(),
                                       .with_offsets = node.with_offsets()};
      if (node.has_max_vocabulary_bytes()) options.max_vocabulary_bytes = node.max_vocabulary_bytes();
      if (node.has_suffix_indicator()) options.tokenizer.suffix_indicator = node.suffix_indicator();
      if (node.has_max_bytes_per_word()) options.tokenizer.max_bytes_per_word = node.max_bytes_per_word();
      options.tokenizer.max_chars_per_token = node.max_chars_per_token();
      if (node.has_unknown_token()) options.tokenizer.unknown_token = node.unknown_token();
      return MakeWordpieceFunction(node.component(), std::move(options));
    }
    default: break;
  }
  return InternalError("TextSplitFunctionFromSpec: not a text splitter or wordpiece");
}

}  // namespace sluice
