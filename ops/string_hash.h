// String hashing for text features: FarmHash's Fingerprint64 (libfarmhash;
// farmhashna::Hash64, the 64-bit fingerprint TensorFlow uses for
// tf.strings.to_hash_bucket_fast and StaticVocabularyTable's OOV buckets),
// and StringToHashBucketFast, which maps strings to bucket ids with it.
// Fingerprints are stable: the same bytes give the same value on every
// platform and version.
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <string_view>

#include "sluice/core/tensor.h"

namespace sluice {

// FarmHash Fingerprint64 of `bytes`.
uint64_t Fingerprint64(std::string_view bytes);

// tf.strings.to_hash_bucket_fast: Fingerprint64(s) % num_buckets for each
// string of `strings` (any shape), as an int64 tensor of the same shape.
// Errors: InvalidArgument for a non-string input or num_buckets < 1.
Result<Tensor> StringToHashBucketFast(const Tensor& strings, int64_t num_buckets);

}  // namespace sluice
