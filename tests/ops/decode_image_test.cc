#include "sluice/ops/decode_image.h"

#include <gtest/gtest.h>

#include "ops/image_test_util.h"
#include "sluice/ops/decode_jpeg.h"

namespace sluice {
namespace {

using testing::TempDir;
using testing::TestPicture;

TEST(DecodeImage, DetectsFormatsBySignature) {
  EXPECT_EQ(DetectImageFormat("\xFF\xD8\xFF\xE0 rest"), ImageFormat::kJpeg);
  EXPECT_EQ(DetectImageFormat(std::string_view("\x89PNG\r\n\x1A\n\0\0", 10)), ImageFormat::kPng);
  EXPECT_EQ(DetectImageFormat("\x89PNG"), ImageFormat::kUnknown);
  EXPECT_EQ(DetectImageFormat("GIF89a"), ImageFormat::kUnknown);
  EXPECT_EQ(DetectImageFormat(""), ImageFormat::kUnknown);
}

TEST(DecodeImage, DecodesJpegAsDecodeJpeg) {
  TempDir dir;
  const std::string jpeg = testing::CjpegEncode(dir, TestPicture(30, 40, 3), "-sample 2x2");
  for (int channels : {0, 1, 3}) {
    Result<Tensor> got = DecodeImage(jpeg, {.channels = channels});
    Result<Tensor> want = DecodeJpeg(jpeg, {.channels = channels});
    ASSERT_TRUE(got.ok() && want.ok()) << got.status() << want.status();
    EXPECT_TRUE(got->Equals(*want)) << "channels " << channels;
  }
}

TEST(DecodeImage, DecodesPng) {
  // A 1x1 8-bit gray PNG of value 0x7F, byte by byte (IHDR, zlib IDAT, IEND).
  const std::string png(
      "\x89\x50\x4E\x47\x0D\x0A\x1A\x0A\x00\x00\x00\x0D\x49\x48\x44\x52"
      "\x00\x00\x00\x01\x00\x00\x00\x01\x08\x00\x00\x00\x00\x3A\x7E\x9B"
      "\x55\x00\x00\x00\x0A\x49\x44\x41\x54\x78\x9C\x63\xA8\x07\x00\x00"
      "\x81\x00\x80\xD3\x94\x53\x4A\x00\x00\x00\x00\x49\x45\x4E\x44\xAE"
      "\x42\x60\x82",
      67);
  Result<Tensor> got = DecodeImage(png, {.channels = 3});
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_TRUE(got->Equals(Tensor::FromVector<uint8_t>({0x7F, 0x7F, 0x7F}, Shape{1, 1, 3})));
}

TEST(DecodeImage, ErrorsNameWhatIsWrong) {
  Result<Tensor> empty = DecodeImage("");
  EXPECT_EQ(empty.status().code(), StatusCode::kDataLoss) << empty.status();
  Result<Tensor> gif = DecodeImage("GIF89a....");
  EXPECT_EQ(gif.status().code(), StatusCode::kInvalidArgument) << gif.status();
  EXPECT_NE(gif.status().message().find("neither JPEG nor PNG"), std::string::npos) << gif.status();
  Result<Tensor> truncated = DecodeImage("\xFF\xD8\xFF\xE0");
  EXPECT_EQ(truncated.status().code(), StatusCode::kDataLoss) << truncated.status();
  EXPECT_EQ(DecodeImage("x", {.channels = 4}).status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace sluice
