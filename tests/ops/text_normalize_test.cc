#include "sluice/ops/text_normalize.h"

#include <gtest/gtest.h>

namespace sluice {
namespace {

Tensor Strings(const std::vector<std::string>& values) { return Tensor::FromVector(values); }

TEST(LowerUtf8Test, FullUnicodeLowercase) {
  Result<Tensor> lower = LowerUtf8(Strings({"HELLO World", "W\u00d6RLD \u0391\u0392\u0393", "\u0130", ""}));
  ASSERT_TRUE(lower.ok()) << lower.status();
  // U+0130 (capital I with dot above) lowercases to i + U+0307 in the root locale.
  EXPECT_TRUE(lower->Equals(Strings({"hello world", "w\u00f6rld \u03b1\u03b2\u03b3", "i\u0307", ""})))
      << lower->ToJson();
  Result<Tensor> matrix = LowerUtf8(Tensor::FromVector<std::string>({"A", "B", "C", "D"}, Shape{2, 2}));
  ASSERT_TRUE(matrix.ok());
  EXPECT_EQ(matrix->shape(), (Shape{2, 2}));
}

TEST(NormalizeUtf8Test, EveryForm) {
  struct Case {
    NormalizationForm form;
    std::string in, want;
  };
  const Case cases[] = {
      {NormalizationForm::kNFC, "e\u0301t\u00e9", "\u00e9t\u00e9"},
      {NormalizationForm::kNFD, "\u00e9", "e\u0301"},
      {NormalizationForm::kNFKC, "\ufb01ve \u2460", "five 1"},
      {NormalizationForm::kNFKD, "\u00e9\u2460", "e\u03011"},
      {NormalizationForm::kNFC, "plain ascii", "plain ascii"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(NormalizationFormName(c.form));
    Result<Tensor> out = NormalizeUtf8(Tensor::Scalar(c.in), c.form);
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_EQ(std::string_view(out->scalar<TString>().data(), out->scalar<TString>().size()), c.want);
  }
}

TEST(NormalizeUtf8Test, FormNamesAndErrors) {
  EXPECT_EQ(*ParseNormalizationForm("NFKC"), NormalizationForm::kNFKC);
  EXPECT_EQ(ParseNormalizationForm("nfc").status().message(),
            "unknown normalization form 'nfc' (expected NFC, NFKC, NFD or NFKD)");
  EXPECT_EQ(NormalizeUtf8(Strings({"ok", "\xe2\x82"}), NormalizationForm::kNFC).status().message(),
            "normalize: string 1 is not valid UTF-8: bad byte sequence at byte offset 0");
  EXPECT_EQ(LowerUtf8(Tensor::Scalar(1.0f)).status().message(), "lower: expected strings, got float32[]");
}

}  // namespace
}  // namespace sluice
