#include "sluice/ops/wordpiece.h"

#include <unicode/utf8.h>

#include <algorithm>
#include <vector>

#include "sluice/ops/utf8.h"

namespace sluice {

// Word-initial pieces are looked up in `initials`, every token; continuation
// pieces in `suffixes`, the tokens that start with the suffix indicator,
// keyed without it (so no candidate string is built). The keys live in the
// table's nodes: a lookup that hits reads no other memory (a table of views
// into the vocabulary's text ran 1.4x slower). The longest key of each
// bounds the candidates tried.
struct WordpieceTokenizer::Index {
  // Keys held in the nodes (short ones inline), found by string_view.
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>()(s); }
  };
  using Table = std::unordered_map<std::string, int64_t, Hash, std::equal_to<>>;
  Table initials;
  Table suffixes;
  size_t longest_initial = 0;
  size_t longest_suffix = 0;
};

Result<WordpieceTokenizer> WordpieceTokenizer::Make(std::shared_ptr<const Vocabulary> vocabulary,
                                                    WordpieceOptions options) {
  if (options.max_bytes_per_word < 1 || options.max_bytes_per_word > INT32_MAX) {
    return InvalidArgumentError("wordpiece: max_bytes_per_word must be in [1, 2^31 - 1], got ",
                                options.max_bytes_per_word);
  }
  if (options.max_chars_per_token < 0) {
    return InvalidArgumentError("wordpiece: max_chars_per_token must be >= 0 (0: no limit), got ",
                                options.max_chars_per_token);
  }
  if (options.unknown_token.empty()) return InvalidArgumentError("wordpiece: unknown_token must not be empty");
  auto index = std::make_shared<Index>();
  const std::string_view suffix = options.suffix_indicator;
  for (int64_t id = 0; id < vocabulary->size(); ++id) {
    const std::string_view token = vocabulary->token(id);
    index->longest_initial = std::max(index->longest_initial, token.size());
    index->initials.emplace(token, id);
    if (token.size() > suffix.size() && token.substr(0, suffix.size()) == suffix) {
      const std::string_view rest = token.substr(suffix.size());
      index->suffixes.emplace(rest, id);
      index->longest_suffix = std::max(index->longest_suffix, rest.size());
    }
  }
  const int64_t unknown_id = vocabulary->Find(options.unknown_token).value_or(vocabulary->size());
  return WordpieceTokenizer(std::move(vocabulary), std::move(options), std::move(index), unknown_id);
}

Result<Wordpieces> WordpieceTokenizer::Tokenize(const Tensor& words, WordpieceOutputs outputs) const {
  SLUICE_RETURN_IF_ERROR(CheckStrings("wordpiece", words));
  struct Piece {
    int64_t id;
    int32_t start, end;
  };
  const int64_t n = words.NumElements();
  Tensor row_lengths = Tensor::AllocateUninitialized(DType::kInt64, Shape{n});
  int64_t* lengths = row_lengths.mutable_data<int64_t>();
  std::vector<Piece> pieces;
  pieces.reserve(static_cast<size_t>(n));  // most words are one or a few pieces
  std::vector<int32_t> ends;  // candidate piece ends, on character boundaries
  const TString* in = words.data<TString>();
  const size_t max_chars = static_cast<size_t>(options_.max_chars_per_token);
  for (int64_t w = 0; w < n; ++w) {
    const std::string_view word(in[w].data(), in[w].size());
    SLUICE_RETURN_IF_ERROR(CheckUtf8(word, w).WithContext("wordpiece"));
    const bool ascii = IsAscii(word);
    const size_t word_start = pieces.size();
    const int32_t size = static_cast<int32_t>(word.size());
    bool unknown = word.size() > static_cast<size_t>(options_.max_bytes_per_word);
    for (int32_t start = 0; start < size && !unknown;) {
      const size_t longest = start == 0 ? index_->longest_initial : index_->longest_suffix;
      const int32_t limit = static_cast<int32_t>(std::min<size_t>(word.size(), start + longest));
      ends.clear();
      if (ascii) {
        for (int32_t e = start + 1; e <= limit && (max_chars == 0 || ends.size() < max_chars); ++e) ends.push_back(e);
      } else {
        for (int32_t e = start; e < limit && (max_chars == 0 || ends.size() < max_chars);) {
          U8_FWD_1(reinterpret_cast<const uint8_t*>(word.data()), e, size);
          if (e <= limit) ends.push_back(e);
        }
      }
      int64_t id = -1;
      int32_t end = start;
      for (auto e = ends.rbegin(); e != ends.rend(); ++e) {
        const std::string_view candidate = word.substr(start, *e - start);
        const Index::Table& table = start == 0 ? index_->initials : index_->suffixes;
        if (auto it = table.find(candidate); it != table.end()) id = it->second;
        if (id >= 0) {
          end = *e;
          break;
        }
      }
      if (id < 0) {
        unknown = true;
        break;
      }
      pieces.push_back({id, start, end});
      start = end;
    }
    if (unknown) {
      pieces.resize(word_start);
      pieces.push_back({unknown_id_, 0, size});
    }
    lengths[w] = static_cast<int64_t>(pieces.size() - word_start);
  }

  const Shape shape{static_cast<int64_t>(pieces.size())};
  Wordpieces out{.row_lengths = std::move(row_lengths)};
  if (outputs.ids) {
    out.ids = Tensor::AllocateUninitialized(DType::kInt64, shape);
    int64_t* ids = out.ids.mutable_data<int64_t>();
    for (size_t p = 0; p < pieces.size(); ++p) ids[p] = pieces[p].id;
  }
  if (outputs.tokens) {
    out.tokens = Tensor::Allocate(DType::kString, shape);
    TString* tokens = out.tokens.mutable_data<TString>();
    for (size_t p = 0; p < pieces.size(); ++p) {
      const int64_t id = pieces[p].id;
      tokens[p] = TString(id < vocabulary_->size() ? vocabulary_->token(id) : std::string_view(options_.unknown_token));
    }
  }
  if (outputs.offsets) {
    out.start_offsets = Tensor::AllocateUninitialized(DType::kInt64, shape);
    out.end_offsets = Tensor::AllocateUninitialized(DType::kInt64, shape);
    int64_t* starts = out.start_offsets.mutable_data<int64_t>();
    int64_t* ends_out = out.end_offsets.mutable_data<int64_t>();
    for (size_t p = 0; p < pieces.size(); ++p) {
      starts[p] = pieces[p].start;
      ends_out[p] = pieces[p].end;
    }
  }
  return out;
}

}  // namespace sluice
