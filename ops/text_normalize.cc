#include "sluice/ops/text_normalize.h"

#include <unicode/locid.h>
#include <unicode/normalizer2.h>
#include <unicode/unistr.h>

#include <string>

#include "sluice/ops/utf8.h"

namespace sluice {
namespace {

// out[i] = transform(in[i]) for every string, after checking it is UTF-8.
// `transform(bytes, ascii, out)` writes the result into `out`.
template <typename Transform>
Result<Tensor> TransformEach(std::string_view what, const Tensor& strings, Transform transform) {
  SLUICE_RETURN_IF_ERROR(CheckStrings(what, strings));
  Tensor out = Tensor::Allocate(DType::kString, strings.shape());
  const TString* in = strings.data<TString>();
  TString* result = out.mutable_data<TString>();
  std::string scratch;
  for (int64_t i = 0, n = strings.NumElements(); i < n; ++i) {
    const std::string_view bytes(in[i].data(), in[i].size());
    SLUICE_RETURN_IF_ERROR(CheckUtf8(bytes, i).WithContext(what));
    const bool ascii = IsAscii(bytes);
    scratch.clear();
    SLUICE_RETURN_IF_ERROR(transform(bytes, ascii, scratch).WithContext(what));
    result[i] = TString(scratch);
  }
  return out;
}

icu::UnicodeString FromUtf8(std::string_view bytes) {
  return icu::UnicodeString::fromUTF8(icu::StringPiece(bytes.data(), static_cast<int32_t>(bytes.size())));
}

}  // namespace

std::string_view NormalizationFormName(NormalizationForm form) {
  switch (form) {
    case NormalizationForm::kNFC: return "NFC";
    case NormalizationForm::kNFKC: return "NFKC";
    case NormalizationForm::kNFD: return "NFD";
    case NormalizationForm::kNFKD: return "NFKD";
  }
  return "?";
}

Result<NormalizationForm> ParseNormalizationForm(std::string_view name) {
  for (NormalizationForm form : {NormalizationForm::kNFC, NormalizationForm::kNFKC, NormalizationForm::kNFD,
                                 NormalizationForm::kNFKD}) {
    if (name == NormalizationFormName(form)) return form;
  }
  return InvalidArgumentError("unknown normalization form '", name, "' (expected NFC, NFKC, NFD or NFKD)");
}

Result<Tensor> LowerUtf8(const Tensor& strings) {
  return TransformEach("lower", strings, [](std::string_view bytes, bool ascii, std::string& out) {
    if (ascii) {
      out.assign(bytes);
      for (char& c : out) {
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
      }
    } else {
      FromUtf8(bytes).toLower(icu::Locale::getRoot()).toUTF8String(out);
    }
    return OkStatus();
  });
}

Result<Tensor> NormalizeUtf8(const Tensor& strings, NormalizationForm form) {
  UErrorCode error = U_ZERO_ERROR;
  const icu::Normalizer2* normalizer = nullptr;
  switch (form) {
    case NormalizationForm::kNFC: normalizer = icu::Normalizer2::getNFCInstance(error); break;
    case NormalizationForm::kNFKC: normalizer = icu::Normalizer2::getNFKCInstance(error); break;
    case NormalizationForm::kNFD: normalizer = icu::Normalizer2::getNFDInstance(error); break;
    case NormalizationForm::kNFKD: normalizer = icu::Normalizer2::getNFKDInstance(error); break;
  }
  if (U_FAILURE(error) || normalizer == nullptr) {
    return InternalError("normalize: ICU has no ", NormalizationFormName(form), " normalizer: ", u_errorName(error));
  }
  return TransformEach("normalize", strings, [normalizer](std::string_view bytes, bool ascii, std::string& out) {
    if (ascii) {
      out.assign(bytes);
      return OkStatus();
    }
    UErrorCode status = U_ZERO_ERROR;
    icu::UnicodeString normalized = normalizer->normalize(FromUtf8(bytes), status);
    if (U_FAILURE(status)) return InternalError("ICU failed to normalize string: ", u_errorName(status));
    normalized.toUTF8String(out);
    return OkStatus();
  });
}

}  // namespace sluice
