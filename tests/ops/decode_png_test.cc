#include "sluice/ops/decode_png.h"

#include <gtest/gtest.h>
#include <png.h>

#include <vector>

#include "ops/image_test_util.h"

namespace sluice {
namespace {

using testing::TestPicture;

void ExpectStatus(const Result<Tensor>& result, StatusCode code, std::string_view text) {
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), code) << result.status();
  EXPECT_NE(result.status().message().find(text), std::string::npos) << result.status();
}

void AppendBytes(png_structp png, png_bytep data, png_size_t length) {
  static_cast<std::string*>(png_get_io_ptr(png))->append(reinterpret_cast<char*>(data), length);
}

// How the test encoder writes a file (libpng's writer).
struct PngLayout {
  int color_type = PNG_COLOR_TYPE_RGB;
  int bit_depth = 8;
  bool interlaced = false;
  // PNG_COLOR_TYPE_PALETTE: the palette (RGB triples) and per-entry alpha.
  std::vector<png_color> palette;
  std::vector<png_byte> palette_alpha;
};

// `rows`: height rows of packed samples in the layout's format.
std::string EncodePng(int64_t height, int64_t width, const std::vector<std::string>& rows,
                      const PngLayout& layout) {
  std::string out;
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
  png_infop info = png_create_info_struct(png);
  if (setjmp(png_jmpbuf(png))) {
    ADD_FAILURE() << "libpng failed to write the test image";
    png_destroy_write_struct(&png, &info);
    return "";
  }
  png_set_write_fn(png, &out, AppendBytes, nullptr);
  png_set_IHDR(png, info, width, height, layout.bit_depth, layout.color_type,
               layout.interlaced ? PNG_INTERLACE_ADAM7 : PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
               PNG_FILTER_TYPE_DEFAULT);
  if (!layout.palette.empty()) {
    png_set_PLTE(png, info, layout.palette.data(), static_cast<int>(layout.palette.size()));
  }
  if (!layout.palette_alpha.empty()) {
    png_set_tRNS(png, info, layout.palette_alpha.data(), static_cast<int>(layout.palette_alpha.size()), nullptr);
  }
  png_write_info(png, info);
  std::vector<png_bytep> row_pointers;
  for (const std::string& row : rows) row_pointers.push_back(reinterpret_cast<png_bytep>(const_cast<char*>(row.data())));
  png_write_image(png, row_pointers.data());
  png_write_end(png, nullptr);
  png_destroy_write_struct(&png, &info);
  return out;
}

// The rows of an 8-bit HWC picture, as EncodePng takes them.
std::vector<std::string> RowsOf(const Tensor& picture) {
  const int64_t stride = picture.dim(1) * picture.dim(2);
  std::vector<std::string> rows;
  for (int64_t y = 0; y < picture.dim(0); ++y) {
    rows.emplace_back(reinterpret_cast<const char*>(picture.data<uint8_t>()) + y * stride, stride);
  }
  return rows;
}

int ColorTypeFor(int64_t channels) {
  switch (channels) {
    case 1: return PNG_COLOR_TYPE_GRAY;
    case 2: return PNG_COLOR_TYPE_GRAY_ALPHA;
    case 3: return PNG_COLOR_TYPE_RGB;
    default: return PNG_COLOR_TYPE_RGBA;
  }
}

std::string EncodePicture(const Tensor& picture, bool interlaced = false) {
  return EncodePng(picture.dim(0), picture.dim(1), RowsOf(picture),
                   {.color_type = ColorTypeFor(picture.dim(2)), .interlaced = interlaced});
}

// Every channel count, plain and interlaced, decodes to the written pixels.
TEST(DecodePng, RoundTripsEveryChannelCount) {
  for (int64_t channels : {1, 2, 3, 4}) {
    for (bool interlaced : {false, true}) {
      SCOPED_TRACE(::testing::Message() << channels << " channels, interlaced " << interlaced);
      const Tensor picture = TestPicture(37, 53, channels, static_cast<uint32_t>(channels));
      Result<Tensor> got = DecodePng(EncodePicture(picture, interlaced));
      ASSERT_TRUE(got.ok()) << got.status();
      EXPECT_TRUE(got->Equals(picture));
    }
  }
}

// One pixel of an image and what each requested channel count makes of it.
TEST(DecodePng, ConvertsChannels) {
  const Tensor rgba = Tensor::FromVector<uint8_t>({10, 20, 30, 40, 50, 50, 50, 255}, Shape{1, 2, 4});
  const std::string png = EncodePicture(rgba);
  Result<Tensor> rgb = DecodePng(png, {.channels = 3});
  ASSERT_TRUE(rgb.ok()) << rgb.status();
  EXPECT_TRUE(rgb->Equals(Tensor::FromVector<uint8_t>({10, 20, 30, 50, 50, 50}, Shape{1, 2, 3})));
  // Gray: libpng's weights 6968, 23434, 2366 / 32768 (Rec. 709 luma).
  Result<Tensor> gray = DecodePng(png, {.channels = 1});
  ASSERT_TRUE(gray.ok()) << gray.status();
  ASSERT_EQ(gray->shape(), (Shape{1, 2, 1}));
  EXPECT_NEAR(gray->data<uint8_t>()[0], (6968 * 10 + 23434 * 20 + 2366 * 30) / 32768.0, 1.0);
  EXPECT_EQ(gray->data<uint8_t>()[1], 50);

  const Tensor g = Tensor::FromVector<uint8_t>({7, 200}, Shape{1, 2, 1});
  Result<Tensor> g3 = DecodePng(EncodePicture(g), {.channels = 3});
  ASSERT_TRUE(g3.ok()) << g3.status();
  EXPECT_TRUE(g3->Equals(Tensor::FromVector<uint8_t>({7, 7, 7, 200, 200, 200}, Shape{1, 2, 3})));
  Result<Tensor> g4 = DecodePng(EncodePicture(g), {.channels = 4});
  ASSERT_TRUE(g4.ok()) << g4.status();
  EXPECT_TRUE(g4->Equals(Tensor::FromVector<uint8_t>({7, 7, 7, 255, 200, 200, 200, 255}, Shape{1, 2, 4})));
}

TEST(DecodePng, ExpandsPalettesAndSubByteGray) {
  const PngLayout palette{.color_type = PNG_COLOR_TYPE_PALETTE,
                          .palette = {{255, 0, 0}, {0, 128, 255}},
                          .palette_alpha = {255, 64}};
  const std::string png = EncodePng(1, 3, {std::string("\x00\x01\x00", 3)}, palette);
  Result<Tensor> as_encoded = DecodePng(png);
  ASSERT_TRUE(as_encoded.ok()) << as_encoded.status();
  EXPECT_TRUE(as_encoded->Equals(
      Tensor::FromVector<uint8_t>({255, 0, 0, 255, 0, 128, 255, 64, 255, 0, 0, 255}, Shape{1, 3, 4})));
  Result<Tensor> rgb = DecodePng(png, {.channels = 3});
  ASSERT_TRUE(rgb.ok()) << rgb.status();
  EXPECT_TRUE(rgb->Equals(Tensor::FromVector<uint8_t>({255, 0, 0, 0, 128, 255, 255, 0, 0}, Shape{1, 3, 3})));
  // 2-bit gray 0, 1, 2, 3 scale to 0, 85, 170, 255.
  const std::string gray2 = EncodePng(1, 4, {std::string("\x1B", 1)}, {.color_type = PNG_COLOR_TYPE_GRAY, .bit_depth = 2});
  Result<Tensor> gray = DecodePng(gray2);
  ASSERT_TRUE(gray.ok()) << gray.status();
  EXPECT_TRUE(gray->Equals(Tensor::FromVector<uint8_t>({0, 85, 170, 255}, Shape{1, 4, 1})));
}

TEST(DecodePng, SixteenBitIsRefused) {
  const std::string png = EncodePng(1, 1, {std::string("\x01\x02\x03\x04\x05\x06", 6)},
                                    {.color_type = PNG_COLOR_TYPE_RGB, .bit_depth = 16});
  ExpectStatus(DecodePng(png), StatusCode::kUnimplemented, "16 bits per channel");
}

TEST(DecodePng, EmptyTruncatedAndCorruptAreDataLoss) {
  const std::string png = EncodePicture(TestPicture(40, 40, 3));
  ExpectStatus(DecodePng(""), StatusCode::kDataLoss, "empty");
  ExpectStatus(DecodePng("GIF89a not a png"), StatusCode::kDataLoss, "PNG signature");
  for (size_t keep : {size_t{8}, size_t{20}, png.size() / 2, png.size() - 4}) {
    SCOPED_TRACE(keep);
    ExpectStatus(DecodePng(std::string_view(png).substr(0, keep)), StatusCode::kDataLoss, "PNG data: ");
  }
  std::string bad_crc = png;
  bad_crc[png.find("IDAT") + 10] ^= 0x55;  // image data no longer matches its CRC
  ExpectStatus(DecodePng(bad_crc), StatusCode::kDataLoss, "PNG data: ");
}

TEST(DecodePng, HeaderSizeIsBoundedBeforeDecoding) {
  const std::string png = EncodePicture(TestPicture(40, 50, 3));
  ExpectStatus(DecodePng(png, {.max_pixels = 1999}), StatusCode::kResourceExhausted,
               "40x50 pixels exceeds the limit of 1999 pixels");
  EXPECT_TRUE(DecodePng(png, {.max_pixels = 2000}).ok());
}

TEST(DecodePng, InvalidOptionsAreRejected) {
  ExpectStatus(DecodePng("x", {.channels = 2}), StatusCode::kInvalidArgument, "channels must be 0, 1, 3 or 4, got 2");
  ExpectStatus(DecodePng("x", {.max_pixels = -1}), StatusCode::kInvalidArgument, "max_pixels must be > 0");
}

}  // namespace
}  // namespace sluice
