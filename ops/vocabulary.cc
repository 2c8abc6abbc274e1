#include "sluice/ops/vocabulary.h"

#include <algorithm>

#include "sluice/ops/string_hash.h"
#include "sluice/ops/utf8.h"

namespace sluice {

int64_t Vocabulary::TableBytes(std::string_view text) {
  const auto lines = static_cast<int64_t>(std::count(text.begin(), text.end(), '\n') +
                                          (!text.empty() && text.back() != '\n' ? 1 : 0));
  return static_cast<int64_t>(text.size()) + lines * kBytesPerToken;
}

Result<std::shared_ptr<const Vocabulary>> Vocabulary::From(std::string text, std::string_view source) {
  std::shared_ptr<Vocabulary> vocabulary(new Vocabulary());
  vocabulary->bytes_ = TableBytes(text);
  const auto lines = static_cast<size_t>((vocabulary->bytes_ - static_cast<int64_t>(text.size())) / kBytesPerToken);
  vocabulary->tokens_.reserve(lines);
  vocabulary->ids_.reserve(lines);
  vocabulary->text_ = std::move(text);
  const std::string_view all = vocabulary->text_;
  size_t begin = 0;
  while (begin < all.size()) {
    size_t end = all.find('\n', begin);
    if (end == std::string_view::npos) end = all.size();
    std::string_view token = all.substr(begin, end - begin);
    if (!token.empty() && token.back() == '\r') token.remove_suffix(1);
    const int64_t line = static_cast<int64_t>(vocabulary->tokens_.size()) + 1;
    if (token.empty()) return InvalidArgumentError(source, ": line ", line, " is empty; every line must hold a token");
    auto [it, inserted] = vocabulary->ids_.emplace(token, line - 1);
    if (!inserted) {
      return InvalidArgumentError(source, ": line ", line, " repeats the token '", token, "' of line ",
                                  it->second + 1);
    }
    vocabulary->tokens_.push_back(token);
    begin = end + 1;
  }
  return std::shared_ptr<const Vocabulary>(std::move(vocabulary));
}

Result<Tensor> LookupTokens(const Tensor& strings, const Vocabulary& vocabulary, int64_t num_oov_buckets,
                            int64_t default_value) {
  SLUICE_RETURN_IF_ERROR(CheckStrings("lookup", strings));
  if (num_oov_buckets < 0 || num_oov_buckets > INT64_MAX - vocabulary.size()) {
    return InvalidArgumentError("lookup: num_oov_buckets must be in [0, ", INT64_MAX - vocabulary.size(),
                                "] beside ", vocabulary.size(), " tokens, got ", num_oov_buckets);
  }
  Tensor out = Tensor::AllocateUninitialized(DType::kInt64, strings.shape());
  const TString* in = strings.data<TString>();
  int64_t* ids = out.mutable_data<int64_t>();
  for (int64_t i = 0, n = strings.NumElements(); i < n; ++i) {
    const std::string_view token(in[i].data(), in[i].size());
    if (std::optional<int64_t> id = vocabulary.Find(token)) {
      ids[i] = *id;
    } else if (num_oov_buckets > 0) {
      ids[i] = vocabulary.size() +
               static_cast<int64_t>(Fingerprint64(token) % static_cast<uint64_t>(num_oov_buckets));
    } else {
      ids[i] = default_value;
    }
  }
  return out;
}

}  // namespace sluice
