#include "sluice/ops/regex_replace.h"

#include <re2/re2.h>
#include <unicode/utf8.h>

#include <algorithm>
#include <cstdint>
#include <string_view>

#include "sluice/ops/regex.h"
#include "sluice/ops/string_transform.h"

namespace sluice {
namespace {

// The longest result string: what a string tensor's element may hold.
constexpr size_t kMaxResultBytes = (size_t{1} << 31) - 1;

}  // namespace

Result<RegexReplacer> RegexReplacer::Make(const std::string& pattern, const std::string& rewrite,
                                          bool replace_global) {
  SLUICE_ASSIGN_OR_RETURN(std::shared_ptr<const RE2> regex, CompileRegex("regex_replace", pattern));
  std::string error;
  if (!regex->CheckRewriteString(rewrite, &error)) {
    return InvalidArgumentError("regex_replace: rewrite '", rewrite, "' for pattern '", pattern, "': ", error);
  }
  // RE2's rewrite syntax, checked above: \d a group, \\ a backslash.
  std::vector<Piece> pieces(1);
  int groups = 1;
  for (size_t i = 0; i < rewrite.size(); ++i) {
    if (rewrite[i] != '\\' || i + 1 == rewrite.size()) {
      pieces.back().literal += rewrite[i];
      continue;
    }
    const char next = rewrite[++i];
    if (next == '\\') {
      pieces.back().literal += '\\';
      continue;
    }
    const int group = next - '0';
    pieces.back().group = group;
    groups = std::max(groups, group + 1);
    pieces.emplace_back();
  }
  return RegexReplacer(pattern, rewrite, replace_global, std::move(regex), std::move(pieces), groups);
}

Result<Tensor> RegexReplacer::Replace(const Tensor& strings) const {
  const RE2& regex = *regex_;
  std::vector<re2::StringPiece> match(static_cast<size_t>(groups_));
  const auto too_long = [] { return ResourceExhaustedError("a result of more than ", kMaxResultBytes, " bytes"); };
  return TransformStrings("regex_replace", strings, [&](std::string_view bytes, bool, std::string& out) -> Status {
    const re2::StringPiece text(bytes.data(), bytes.size());
    size_t position = 0, last_end = std::string_view::npos;
    int64_t replaced = 0;
    while (position <= bytes.size() && (replace_global_ || replaced == 0)) {
      if (!regex.Match(text, position, bytes.size(), RE2::UNANCHORED, match.data(), groups_)) break;
      const auto begin = static_cast<size_t>(match[0].data() - bytes.data());
      size_t added = begin - position;
      if (begin == last_end && match[0].empty()) {
        // An empty match right where the last one ended: copy a character on.
        if (position == bytes.size()) break;
        auto next = static_cast<int32_t>(position);
        U8_FWD_1(reinterpret_cast<const uint8_t*>(bytes.data()), next, static_cast<int32_t>(bytes.size()));
        out.append(bytes.substr(position, static_cast<size_t>(next) - position));  // the input's size at most
        position = static_cast<size_t>(next);
        continue;
      }
      for (const Piece& piece : pieces_) {
        added += piece.literal.size() + (piece.group < 0 ? 0 : match[piece.group].size());
      }
      if (out.size() + added > kMaxResultBytes) return too_long();
      out.append(bytes.substr(position, begin - position));
      for (const Piece& piece : pieces_) {
        out.append(piece.literal);
        if (piece.group >= 0) out.append(match[piece.group].data(), match[piece.group].size());
      }
      position = last_end = begin + match[0].size();
      ++replaced;
    }
    if (position < bytes.size()) {
      if (out.size() + (bytes.size() - position) > kMaxResultBytes) return too_long();
      out.append(bytes.substr(position));
    }
    return OkStatus();
  });
}

}  // namespace sluice
