// WordpieceTokenizer: tf.text's WordpieceTokenizer over a vocabulary
// (ops/vocabulary.h): each word is cut greedily into the longest vocabulary
// token that starts it, then the longest "<suffix_indicator>piece" that
// continues it, and so on. A word with a remainder that no token matches,
// or longer than max_bytes_per_word, becomes the single unknown token.
// Candidate pieces end on UTF-8 character boundaries and, with
// max_chars_per_token > 0, are at most that many characters long.
//
// Tokenize takes a string tensor of words (any shape, row-major) and gives
// every word's pieces end to end: ids (the vocabulary's line numbers; the
// unknown token's id is its line, or vocabulary size when it is absent, as
// tf.text's StaticVocabularyTable with one OOV bucket gives), and/or the
// piece strings ("##" prefix included), each with the byte offsets
// [start, end) of the piece in its word; plus each word's piece count.
// tf.text's example: vocabulary "they ##' ##re the great ##est" cuts
// ["they're", "the", "greatest"] into [they ##' ##re] [the] [great ##est],
// starts [0 4 5] [0] [0 5], ends [4 5 7] [3] [5 8].
// Errors: InvalidArgument for a non-string input and ill-formed UTF-8.
// The tokenizer keeps the vocabulary and its own lookup tables of the
// tokens (about twice the vocabulary's text again).
// Thread safety: immutable after Make; Tokenize may be called concurrently.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>

#include "sluice/core/tensor.h"
#include "sluice/ops/vocabulary.h"

namespace sluice {

struct WordpieceOptions {
  std::string suffix_indicator = "##";
  int64_t max_bytes_per_word = 100;  // in [1, 2^31 - 1]
  int64_t max_chars_per_token = 0;   // 0: no limit
  std::string unknown_token = "[UNK]";  // not empty
};

struct WordpieceOutputs {
  bool ids = true;
  bool tokens = false;
  bool offsets = false;
};

struct Wordpieces {
  Tensor ids;            // int64 [total], when asked for
  Tensor tokens;         // string [total], when asked for
  Tensor start_offsets;  // int64 [total], when asked for
  Tensor end_offsets;    // int64 [total]
  Tensor row_lengths;    // int64 [words]: each word's piece count
};

class WordpieceTokenizer {
 public:
  // InvalidArgument naming the option when one is out of range.
  static Result<WordpieceTokenizer> Make(std::shared_ptr<const Vocabulary> vocabulary, WordpieceOptions options);

  Result<Wordpieces> Tokenize(const Tensor& words, WordpieceOutputs outputs) const;
  const WordpieceOptions& options() const { return options_; }
  const Vocabulary& vocabulary() const { return *vocabulary_; }
  int64_t unknown_id() const { return unknown_id_; }

 private:
  struct Index;  // the lookup tables, shared by copies
  WordpieceTokenizer(std::shared_ptr<const Vocabulary> vocabulary, WordpieceOptions options,
                     std::shared_ptr<const Index> index, int64_t unknown_id)
      : vocabulary_(std::move(vocabulary)), options_(std::move(options)), index_(std::move(index)),
        unknown_id_(unknown_id) {}

  std::shared_ptr<const Vocabulary> vocabulary_;
  WordpieceOptions options_;
  std::shared_ptr<const Index> index_;
  int64_t unknown_id_;
};

}  // namespace sluice
