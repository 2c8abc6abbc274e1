// Fuzzes the text functions on untrusted bytes: the first input byte picks
// the function, the second its option, and the rest, cut at each newline,
// is a string tensor (any bytes: invalid UTF-8, NULs, long runs). Whitespace
// and regular-expression splits (a fixed pattern, or the first line as the
// pattern, kept as tokens or not), regular-expression replacement (the first
// line the pattern, the second the rewrite), lowercasing and the four Unicode normal forms, WordPiece over a
// small vocabulary with every output, vocabulary lookup with out-of-vocabulary
// buckets, a vocabulary made from the input itself, and hash buckets.
// Nothing may crash, hang, read or write outside a buffer, or trip a
// sanitizer; errors (invalid UTF-8, a pattern that does not compile) are fine.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "touch.h"
#include "sluice/ops/regex_replace.h"
#include "sluice/ops/string_hash.h"
#include "sluice/ops/text_normalize.h"
#include "sluice/ops/text_split.h"
#include "sluice/ops/vocabulary.h"
#include "sluice/ops/wordpiece.h"

namespace {

using namespace sluice;
using fuzz::TouchTensor;

// The longest pattern taken from the input: RE2 compiles in time and memory
// bounded by the pattern's size.
constexpr size_t kMaxPatternBytes = 64;

std::vector<std::string> Lines(std::string_view text) {
  std::vector<std::string> lines;
  for (size_t start = 0; start <= text.size();) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    lines.emplace_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

void Touch(const Result<SplitTokens>& split) {
  if (!split.ok()) return;
  TouchTensor(split->values);
  TouchTensor(split->row_lengths);
}

const std::shared_ptr<const Vocabulary>& SmallVocabulary() {
  static const std::shared_ptr<const Vocabulary> vocabulary = *Vocabulary::From(
      "[UNK]\nthe\nquick\nbrown\nfox\n##s\n##ing\n##ed\nrun\njump\n##é\ncafé\n日本\n##語\n", "fuzz");
  return vocabulary;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  const uint8_t op = data[0], option = data[1];
  const std::string_view text(reinterpret_cast<const char*>(data + 2), size - 2);
  const std::vector<std::string> lines = Lines(text);
  const Tensor strings = Tensor::FromVector(lines);
  switch (op % 10) {
    case 0:
      Touch(SplitWhitespace(strings));
      break;
    case 1: {
      static const RegexSplitter punctuation = *RegexSplitter::Make(R"([\s\p{P}]+)");
      Touch(punctuation.Split(strings));
      break;
    }
    case 2: {
      if (lines.size() < 2 || lines[0].size() > kMaxPatternBytes) break;
      Result<RegexSplitter> splitter = RegexSplitter::Make(lines[0], option % 2 == 1 ? lines[0] : "");
      if (!splitter.ok()) break;
      Touch(splitter->Split(Tensor::FromVector(std::vector<std::string>(lines.begin() + 1, lines.end()))));
      break;
    }
    case 3: {
      Result<Tensor> lowered = LowerUtf8(strings);
      if (lowered.ok()) TouchTensor(*lowered);
      break;
    }
    case 4: {
      static constexpr NormalizationForm kForms[] = {NormalizationForm::kNFC, NormalizationForm::kNFKC,
                                                     NormalizationForm::kNFD, NormalizationForm::kNFKD};
      Result<Tensor> normalized = NormalizeUtf8(strings, kForms[option % 4]);
      if (normalized.ok()) TouchTensor(*normalized);
      break;
    }
    case 5: {
      Result<WordpieceTokenizer> tokenizer = WordpieceTokenizer::Make(
          SmallVocabulary(), {.max_bytes_per_word = 1 + option % 40, .max_chars_per_token = option % 7});
      if (!tokenizer.ok()) break;
      Result<Wordpieces> pieces = tokenizer->Tokenize(strings, {.ids = true, .tokens = true, .offsets = true});
      if (pieces.ok()) {
        TouchTensor(pieces->ids);
        TouchTensor(pieces->tokens);
        TouchTensor(pieces->start_offsets);
        TouchTensor(pieces->end_offsets);
        TouchTensor(pieces->row_lengths);
      }
      break;
    }
    case 6: {
      Result<Tensor> ids = LookupTokens(strings, *SmallVocabulary(), option % 5, -1);
      if (ids.ok()) TouchTensor(*ids);
      break;
    }
    case 7: {
      Result<std::shared_ptr<const Vocabulary>> vocabulary = Vocabulary::From(std::string(text), "fuzz input");
      if (!vocabulary.ok()) break;
      for (int64_t id = 0; id < (*vocabulary)->size(); ++id) (void)(*vocabulary)->Find((*vocabulary)->token(id));
      Result<Tensor> ids = LookupTokens(strings, **vocabulary, 1 + option % 3, -1);
      if (ids.ok()) TouchTensor(*ids);
      break;
    }
    case 8: {
      Result<Tensor> buckets = StringToHashBucketFast(strings, 1 + option);
      if (buckets.ok()) TouchTensor(*buckets);
      break;
    }
    case 9: {
      if (lines.size() < 3 || lines[0].size() > kMaxPatternBytes || lines[1].size() > kMaxPatternBytes) break;
      Result<RegexReplacer> replacer = RegexReplacer::Make(lines[0], lines[1], option % 2 == 0);
      if (!replacer.ok()) break;
      Result<Tensor> replaced =
          replacer->Replace(Tensor::FromVector(std::vector<std::string>(lines.begin() + 2, lines.end())));
      if (replaced.ok()) TouchTensor(*replaced);
      break;
    }
  }
  return 0;
}
