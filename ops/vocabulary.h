// Vocabulary: the token -> id table of a vocabulary file (one token per
// line, id = line number from 0), as tf.lookup.TextFileInitializer reads
// one with TextFileIndex.WHOLE_LINE keys and LINE_NUMBER values; and
// LookupTokens, tf.lookup.StaticVocabularyTable's lookup over it.
//
// The table holds the file's bytes once, and its index views them. Lines
// end at "\n" (a "\r" before it is dropped); the last line needs no "\n".
// An empty line or a token that repeats an earlier line is InvalidArgument
// naming the source and both lines: ids would otherwise depend on which
// duplicate wins. The caller bounds the text's size (dataset/ reads the
// file with a limit); the line count is bounded by it. TableBytes says what
// a table will hold before it is built, so the caller can charge it first.
// Thread safety: immutable after From; Find and LookupTokens may be called
// concurrently.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "sluice/core/tensor.h"

namespace sluice {

class Vocabulary {
 public:
  // `source` names the text in errors ("vocabulary file 'vocab.txt'").
  static Result<std::shared_ptr<const Vocabulary>> From(std::string text, std::string_view source);

  // The bytes a table built From(text) holds: the text, and per line
  // kBytesPerToken for the token's view and its index entry (a hash node
  // and its bucket, as libstdc++ allocates them).
  static constexpr int64_t kBytesPerToken = 80;
  static int64_t TableBytes(std::string_view text);
  int64_t bytes() const { return bytes_; }

  int64_t size() const { return static_cast<int64_t>(ids_.size()); }
  // The id of `token`, if it is in the vocabulary.
  std::optional<int64_t> Find(std::string_view token) const {
    auto it = ids_.find(token);
    if (it == ids_.end()) return std::nullopt;
    return it->second;
  }
  // Token `id`'s bytes. REQUIRES: 0 <= id < size().
  std::string_view token(int64_t id) const { return tokens_[static_cast<size_t>(id)]; }

 private:
  Vocabulary() = default;
  int64_t bytes_ = 0;  // TableBytes(text_)
  std::string text_;
  std::vector<std::string_view> tokens_;  // views of text_, by id
  std::unordered_map<std::string_view, int64_t> ids_;
};

// tf.lookup.StaticVocabularyTable.lookup: each string of `strings` (any
// shape) becomes its id; a string not in the vocabulary becomes
//   vocabulary.size() + Fingerprint64(string) % num_oov_buckets
// when num_oov_buckets > 0 (ops/string_hash.h), else `default_value` (as
// tf.lookup.StaticHashTable). An int64 tensor of the same shape.
// Errors: InvalidArgument for a non-string input, or num_oov_buckets < 0 or
// so large that ids would pass the int64 maximum.
Result<Tensor> LookupTokens(const Tensor& strings, const Vocabulary& vocabulary, int64_t num_oov_buckets,
                            int64_t default_value);

}  // namespace sluice
