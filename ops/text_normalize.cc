#include "sluice/ops/text_normalize.h"

#include <unicode/locid.h>
#include <unicode/normalizer2.h>
#include <unicode/unistr.h>

#include <string>

#include "sluice/ops/string_transform.h"

namespace sluice {
namespace {

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
  return TransformStrings("lower", strings, [](std::string_view bytes, bool ascii, std::string& out) {
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
  return TransformStrings("normalize", strings, [normalizer](std::string_view bytes, bool ascii, std::string& out) {
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
