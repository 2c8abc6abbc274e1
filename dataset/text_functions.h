// Built-in text element functions (for map): hashing and vocabulary lookup
// of tokens, splitting, lowercasing and Unicode normalisation, WordPiece,
// and padding or truncating token ids to a fixed length. Like the other
// built-ins (builtin_functions.h) they serialize into pipeline specs, infer
// their output specs exactly, and name the function and the component in
// every error; the text work is done by the ops/ kernels each names.
//
// Each function changes one component, named as in builtin_functions.h (an
// empty name: the only component). Strings are UTF-8 bytes.
//
// Variable-length results are values + row lengths, as parse_example's
// VarLen features are: a scalar string becomes a [-1] vector of its pieces,
// which padded_batch pads; a [N] vector of strings becomes the flat [-1]
// vector of all their pieces plus a component "<component>/row_lengths",
// int64 [N], each string's piece count, placed after the values (and after
// wordpiece's offsets).
//
// Elementwise functions (to_hash_bucket_fast, lookup, lower, normalize)
// keep the shape, so they are row-wise and map may hand them whole runs.
// Text that is not well-formed UTF-8 is an InvalidArgument error for that
// element, naming the string and the byte offset, for the functions that
// read characters (lower, normalize, the splitters, wordpiece).
// Thread safety: functions are immutable; Bind, and the bound functions it
// returns, may be called concurrently.
#pragma once

#include <cstdint>
#include <string>

#include "sluice/dataset/functions.h"
#include "sluice/ops/text_normalize.h"
#include "sluice/ops/wordpiece.h"

namespace sluice {

// tf.strings.to_hash_bucket_fast: each string of a string component (any
// shape) becomes Fingerprint64(string) % num_buckets, int64, same shape
// (ops/string_hash.h).
Result<ElementFunctionPtr> MakeToHashBucketFastFunction(std::string component, int64_t num_buckets);

// The bound on a vocabulary file's size: the file is read whole and held.
inline constexpr int64_t kDefaultMaxVocabularyBytes = int64_t{1} << 28;  // 256 MiB

// tf.lookup.StaticVocabularyTable over a vocabulary file (ops/vocabulary.h):
// each string of a string component (any shape) becomes its line number in
// the file, or, when absent, vocab_size + Fingerprint64(string) %
// num_oov_buckets; with num_oov_buckets = 0, default_value (as
// StaticHashTable). int64, same shape. The file is read when the function
// is made; one over max_vocabulary_bytes, with an empty line or with a
// repeated token is InvalidArgument naming the file (and the lines).
struct LookupOptions {
  std::string vocabulary_file;
  int64_t num_oov_buckets = 1;  // >= 0
  int64_t default_value = -1;   // used when num_oov_buckets is 0
  int64_t max_vocabulary_bytes = kDefaultMaxVocabularyBytes;
};
Result<ElementFunctionPtr> MakeLookupFunction(std::string component, LookupOptions options);

// tf.strings.lower(encoding="utf-8"): full Unicode lowercase (ICU, root
// locale) of each string (any shape) (ops/text_normalize.h).
Result<ElementFunctionPtr> MakeLowerFunction(std::string component);

// Unicode normalisation NFC, NFKC, NFD or NFKD of each string (any shape),
// as tf_text.normalize_utf8 (ops/text_normalize.h).
Result<ElementFunctionPtr> MakeNormalizeFunction(std::string component, NormalizationForm form);

// tf.strings.regex_replace of each string (any shape) (ops/regex_replace.h):
// the matches of an RE2 `pattern` (every one, or the first without
// replace_global) replaced by `rewrite` (\1 a group, \0 the match). A
// pattern that doesn't compile, or a rewrite naming a group it lacks, is
// InvalidArgument.
Result<ElementFunctionPtr> MakeRegexReplaceFunction(std::string component, std::string pattern, std::string rewrite,
                                                    bool replace_global = true);

// Splits a string scalar, or each string of a [N] vector, into tokens at
// runs of Unicode whitespace, as tf.text's WhitespaceTokenizer
// (ops/text_split.h): values + row lengths (above).
Result<ElementFunctionPtr> MakeSplitWhitespaceFunction(std::string component);

// Splits at the non-empty matches of an RE2 `pattern`, dropping them and
// empty tokens, as tf.text's regex_split (ops/text_split.h); a match that
// as a whole matches `keep_delim_pattern` (when not empty) is kept as a
// token. A pattern that doesn't compile is InvalidArgument with RE2's
// reason.
Result<ElementFunctionPtr> MakeRegexSplitFunction(std::string component, std::string pattern,
                                                  std::string keep_delim_pattern = "");

// tf.text's WordpieceTokenizer over a vocabulary file (ops/wordpiece.h):
// a word (string scalar) or each word of a [N] vector is cut into pieces,
// given as values + row lengths (above): their ids (int64; the unknown
// token's id is its line, or vocab_size when absent, as tf.text's
// StaticVocabularyTable with one OOV bucket), or with `tokens` the piece
// strings; with `with_offsets` also "<component>/start_offsets" and
// "<component>/end_offsets", int64 byte offsets of each piece in its word.
// The file is read when the function is made (as lookup's).
struct WordpieceFunctionOptions {
  std::string vocabulary_file;
  int64_t max_vocabulary_bytes = kDefaultMaxVocabularyBytes;
  WordpieceOptions tokenizer;
  bool tokens = false;
  bool with_offsets = false;
};
Result<ElementFunctionPtr> MakeWordpieceFunction(std::string component, WordpieceFunctionOptions options);

// The bound on pad_or_truncate's length.
inline constexpr int64_t kMaxPadLength = int64_t{1} << 24;

// A [-1] vector (numeric or string) to exactly `length` values, as
// tf.text's pad_model_inputs for one row (ops/pad_or_truncate.h): the first
// `length` values, then pad_value ("" for strings); plus
// "<component>/mask", int64 [length], 1 for a value and 0 for a pad. So
// batch follows without padding. pad_value must be exact in the dtype.
// With per_row, the values are rows laid out as values +
// "<component>/row_lengths" (a splitter's, or wordpiece's, over a batch) and
// each row is padded: values and mask become [N, length], as
// pad_model_inputs pads a ragged batch; the row lengths stay (the lengths
// before cutting). Without it, row lengths are left as they are (after
// wordpiece over one string's words they count each word's pieces).
Result<ElementFunctionPtr> MakePadOrTruncateFunction(std::string component, int64_t length, double pad_value = 0,
                                                     bool per_row = false);

namespace spec {
class ElementFunction;
}  // namespace spec

// The text function a spec message describes (builtin_functions.cc
// dispatches here): the elementwise ones in TextElementwiseFunctionFromSpec,
// the splitters and wordpiece in TextSplitFunctionFromSpec, pad_or_truncate
// in PadOrTruncateFunctionFromSpec.
Result<ElementFunctionPtr> TextElementwiseFunctionFromSpec(const spec::ElementFunction& fn);
Result<ElementFunctionPtr> TextSplitFunctionFromSpec(const spec::ElementFunction& fn);
Result<ElementFunctionPtr> PadOrTruncateFunctionFromSpec(const spec::ElementFunction& fn);

}  // namespace sluice
