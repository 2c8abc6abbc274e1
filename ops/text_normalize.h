// Unicode case folding and normalisation of UTF-8 strings on ICU:
// LowerUtf8 is tf.strings.lower(encoding="utf-8") (full Unicode lowercase
// mapping, root locale), NormalizeUtf8 is tf.strings.unicode's
// normalize_utf8 / tf_text.normalize_utf8 (NFC, NFKC, NFD, NFKD). Both keep
// the input's shape (any) and give fresh strings; ASCII-only strings take a
// path that skips ICU (ASCII is invariant under every form).
// Errors: InvalidArgument for a non-string input and for ill-formed UTF-8
// (naming the string and the byte offset).
// Thread safety: pure functions.
#pragma once

#include <string_view>

#include "sluice/core/tensor.h"

namespace sluice {

enum class NormalizationForm { kNFC, kNFKC, kNFD, kNFKD };
// "NFC", "NFKC", "NFD", "NFKD", as tf.strings spells them.
std::string_view NormalizationFormName(NormalizationForm form);
Result<NormalizationForm> ParseNormalizationForm(std::string_view name);

Result<Tensor> LowerUtf8(const Tensor& strings);
Result<Tensor> NormalizeUtf8(const Tensor& strings, NormalizationForm form);

}  // namespace sluice
