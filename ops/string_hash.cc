#include "sluice/ops/string_hash.h"

#include <farmhash.h>

#include "sluice/ops/utf8.h"

namespace sluice {

uint64_t Fingerprint64(std::string_view bytes) { return util::Fingerprint64(bytes.data(), bytes.size()); }

Result<Tensor> StringToHashBucketFast(const Tensor& strings, int64_t num_buckets) {
  SLUICE_RETURN_IF_ERROR(CheckStrings("to_hash_bucket_fast", strings));
  if (num_buckets < 1) {
    return InvalidArgumentError("to_hash_bucket_fast: num_buckets must be at least 1, got ", num_buckets);
  }
  Tensor out = Tensor::AllocateUninitialized(DType::kInt64, strings.shape());
  const TString* in = strings.data<TString>();
  int64_t* ids = out.mutable_data<int64_t>();
  const uint64_t buckets = static_cast<uint64_t>(num_buckets);
  for (int64_t i = 0, n = strings.NumElements(); i < n; ++i) {
    ids[i] = static_cast<int64_t>(Fingerprint64(std::string_view(in[i].data(), in[i].size())) % buckets);
  }
  return out;
}

}  // namespace sluice
