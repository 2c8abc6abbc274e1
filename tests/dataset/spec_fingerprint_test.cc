#include "sluice/dataset/spec_fingerprint.h"

#include <gtest/gtest.h>

#include "sluice/dataset/pipeline_spec_io.h"

namespace sluice {
namespace {

spec::Pipeline Spec(const std::string& text) {
  Result<spec::Pipeline> spec = ParseSpecText(text);
  EXPECT_TRUE(spec.ok()) << spec.status();
  return spec.ok() ? *spec : spec::Pipeline();
}

TEST(SpecFingerprintTest, EqualSpecsShareAFingerprint) {
  const spec::Pipeline three = Spec("ops { range { stop: 3 } }");
  EXPECT_EQ(SpecFingerprint(three), SpecFingerprint(Spec("ops {\n range { stop: 3 }\n}")));
  EXPECT_NE(SpecFingerprint(three), SpecFingerprint(Spec("ops { range { stop: 4 } }")));
  EXPECT_EQ(SpecFingerprint(three).size(), 16u);
  EXPECT_EQ(SpecFingerprint(three).find_first_not_of("0123456789abcdef"), std::string::npos);
}

TEST(SpecFingerprintTest, TheBytesAreTheSpecsAndParseBack) {
  const spec::Pipeline spec = Spec("ops { range { stop: 3 } } ops { batch { batch_size: 2 } }");
  const std::string bytes = DeterministicSpecBytes(spec);
  EXPECT_EQ(bytes, DeterministicSpecBytes(spec));
  spec::Pipeline parsed;
  ASSERT_TRUE(parsed.ParseFromString(bytes));
  EXPECT_EQ(SpecToText(parsed), SpecToText(spec));
}

}  // namespace
}  // namespace sluice
