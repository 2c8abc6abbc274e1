#include "sluice/ops/text_split.h"

#include <re2/re2.h>
#include <unicode/uchar.h>
#include <unicode/utf8.h>

#include <string_view>
#include <vector>

#include "sluice/ops/regex.h"
#include "sluice/ops/utf8.h"

namespace sluice {
namespace {

// Runs `split(bytes, index, tokens)` on every string of `strings`, which
// appends that string's tokens (views of its bytes), and gathers them.
template <typename SplitOne>
Result<SplitTokens> SplitEach(std::string_view what, const Tensor& strings, SplitOne split) {
  SLUICE_RETURN_IF_ERROR(CheckStrings(what, strings));
  const int64_t n = strings.NumElements();
  Tensor row_lengths = Tensor::AllocateUninitialized(DType::kInt64, Shape{n});
  int64_t* lengths = row_lengths.mutable_data<int64_t>();
  std::vector<std::string_view> tokens;
  const TString* in = strings.data<TString>();
  for (int64_t i = 0; i < n; ++i) {
    const std::string_view bytes(in[i].data(), in[i].size());
    SLUICE_RETURN_IF_ERROR(CheckUtf8(bytes, i).WithContext(what));
    const size_t before = tokens.size();
    split(bytes, tokens);
    lengths[i] = static_cast<int64_t>(tokens.size() - before);
  }
  Tensor values = Tensor::Allocate(DType::kString, Shape{static_cast<int64_t>(tokens.size())});
  TString* out = values.mutable_data<TString>();
  for (size_t t = 0; t < tokens.size(); ++t) out[t] = TString::View(tokens[t]);
  values.AddBacking(strings);
  return SplitTokens{.values = std::move(values), .row_lengths = std::move(row_lengths)};
}

// Whether the character at bytes[i] is White_Space; advances i past it.
// REQUIRES: well-formed UTF-8.
bool NextIsWhitespace(std::string_view bytes, int32_t& i) {
  const auto c0 = static_cast<uint8_t>(bytes[static_cast<size_t>(i)]);
  if (c0 < 0x80) {
    ++i;
    return c0 == ' ' || (c0 >= '\t' && c0 <= '\r');
  }
  UChar32 c;
  U8_NEXT(reinterpret_cast<const uint8_t*>(bytes.data()), i, static_cast<int32_t>(bytes.size()), c);
  return u_isUWhiteSpace(c);
}

}  // namespace

Result<SplitTokens> SplitWhitespace(const Tensor& strings) {
  return SplitEach("split_whitespace", strings, [](std::string_view bytes, std::vector<std::string_view>& tokens) {
    const int32_t length = static_cast<int32_t>(bytes.size());
    int32_t token_start = -1;
    for (int32_t i = 0; i < length;) {
      const int32_t at = i;
      if (NextIsWhitespace(bytes, i)) {
        if (token_start >= 0) tokens.push_back(bytes.substr(token_start, at - token_start));
        token_start = -1;
      } else if (token_start < 0) {
        token_start = at;
      }
    }
    if (token_start >= 0) tokens.push_back(bytes.substr(token_start));
  });
}

Result<RegexSplitter> RegexSplitter::Make(const std::string& pattern, const std::string& keep_pattern) {
  SLUICE_ASSIGN_OR_RETURN(std::shared_ptr<const RE2> regex, CompileRegex("regex_split", pattern));
  std::shared_ptr<const RE2> keep;
  if (!keep_pattern.empty()) {
    SLUICE_ASSIGN_OR_RETURN(keep, CompileRegex("regex_split: keep_delim_pattern", keep_pattern));
  }
  return RegexSplitter(pattern, std::move(regex), keep_pattern, std::move(keep));
}

Result<SplitTokens> RegexSplitter::Split(const Tensor& strings) const {
  const RE2& regex = *regex_;
  const RE2* keep = keep_.get();
  return SplitEach("regex_split", strings, [&regex, keep](std::string_view bytes,
                                                          std::vector<std::string_view>& tokens) {
    const re2::StringPiece text(bytes.data(), bytes.size());
    size_t token_start = 0, search = 0;
    re2::StringPiece match;
    while (search <= bytes.size() && regex.Match(text, search, bytes.size(), RE2::UNANCHORED, &match, 1)) {
      const size_t begin = static_cast<size_t>(match.data() - bytes.data());
      if (match.empty()) {  // no split here: look again one character on
        if (begin >= bytes.size()) break;
        int32_t next = static_cast<int32_t>(begin);
        U8_FWD_1(reinterpret_cast<const uint8_t*>(bytes.data()), next, static_cast<int32_t>(bytes.size()));
        search = static_cast<size_t>(next);
        continue;
      }
      if (begin > token_start) tokens.push_back(bytes.substr(token_start, begin - token_start));
      if (keep != nullptr && RE2::FullMatch(match, *keep)) tokens.push_back(bytes.substr(begin, match.size()));
      token_start = search = begin + match.size();
    }
    if (token_start < bytes.size()) tokens.push_back(bytes.substr(token_start));
  });
}

}  // namespace sluice
