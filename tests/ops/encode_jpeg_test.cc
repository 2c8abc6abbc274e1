#include "sluice/ops/encode_jpeg.h"

#include <gtest/gtest.h>

#include "ops/image_test_util.h"
#include "sluice/ops/decode_jpeg.h"

namespace sluice {
namespace {

using testing::CjpegEncode;
using testing::TempDir;
using testing::TestPicture;

// The encoder sets libjpeg up as cjpeg does, so the bytes are cjpeg's.
struct CjpegCase {
  const char* label;
  int64_t height, width, channels;
  EncodeJpegOptions options;
  const char* cjpeg_flags;
};

class EncodeJpegMatchesCjpeg : public ::testing::TestWithParam<CjpegCase> {};

TEST_P(EncodeJpegMatchesCjpeg, BytesAreEqual) {
  const CjpegCase& c = GetParam();
  TempDir dir;
  const Tensor picture = TestPicture(c.height, c.width, c.channels);
  Result<std::string> got = EncodeJpeg(picture, c.options);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_TRUE(*got == CjpegEncode(dir, picture, c.cjpeg_flags)) << "bytes differ from cjpeg " << c.cjpeg_flags;
}

INSTANTIATE_TEST_SUITE_P(
    Cases, EncodeJpegMatchesCjpeg,
    ::testing::Values(CjpegCase{"yuv420_q90", 375, 500, 3, {}, "-quality 90 -sample 2x2"},
                      CjpegCase{"yuv444_q95", 149, 227, 3, {.quality = 95, .subsampling = ChromaSubsampling::k444},
                                "-quality 95 -sample 1x1"},
                      CjpegCase{"grayscale_q75", 64, 48, 1, {.quality = 75}, "-quality 75"}),
    [](const ::testing::TestParamInfo<CjpegCase>& info) { return std::string(info.param.label); });

TEST(EncodeJpegTest, DecodesBackToTheShapeAndCloseToThePixels) {
  const Tensor picture = TestPicture(37, 53, 3);
  Result<std::string> bytes = EncodeJpeg(picture, {.quality = 100, .subsampling = ChromaSubsampling::k444});
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  Result<Tensor> decoded = DecodeJpeg(*bytes);
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  ASSERT_EQ(decoded->shape(), picture.shape());
  int64_t worst = 0;
  for (int64_t i = 0; i < picture.NumElements(); ++i) {
    worst = std::max<int64_t>(worst, std::abs(int{decoded->data<uint8_t>()[i]} - int{picture.data<uint8_t>()[i]}));
  }
  EXPECT_LE(worst, 12) << "quality 100 4:4:4 stays within a few levels of the source";
}

TEST(EncodeJpegTest, RejectsWhatJpegCannotHold) {
  for (const Tensor& image : {Tensor::Allocate(DType::kFloat32, Shape{4, 4, 3}), Tensor::Allocate(DType::kUInt8, Shape{4, 4}),
                              Tensor::Allocate(DType::kUInt8, Shape{4, 4, 4}), Tensor::Allocate(DType::kUInt8, Shape{0, 4, 3})}) {
    Result<std::string> out = EncodeJpeg(image);
    ASSERT_FALSE(out.ok()) << image.shape();
    EXPECT_EQ(out.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(out.status().message().find("encode_jpeg: expected a uint8 image"), std::string::npos) << out.status();
  }
  Result<std::string> bad_quality = EncodeJpeg(TestPicture(8, 8, 3), {.quality = 0});
  ASSERT_FALSE(bad_quality.ok());
  EXPECT_NE(bad_quality.status().message().find("quality must be in 1..100, got 0"), std::string::npos);
}

}  // namespace
}  // namespace sluice
