#include "sluice/ops/decode_jpeg.h"

#include <gtest/gtest.h>

#include "ops/image_test_util.h"
#include "sluice/ops/jpeg_crop_scale.h"

namespace sluice {
namespace {

using testing::CjpegEncode;
using testing::DjpegDecode;
using testing::TempDir;
using testing::TestPicture;

void ExpectStatus(const Result<Tensor>& result, StatusCode code, std::string_view text) {
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), code) << result.status();
  EXPECT_NE(result.status().message().find(text), std::string::npos) << result.status();
}

// One decode against djpeg: how the file is made and decoded.
struct DjpegCase {
  const char* label;
  int64_t height, width, channels;  // of the picture cjpeg encodes
  const char* cjpeg_flags;
  DecodeJpegOptions options;
  const char* djpeg_flags;
  Shape expected_shape;
};

class DecodeJpegMatchesDjpeg : public ::testing::TestWithParam<DjpegCase> {};

TEST_P(DecodeJpegMatchesDjpeg, PixelsAreEqual) {
  const DjpegCase& c = GetParam();
  TempDir dir;
  const std::string jpeg =
      CjpegEncode(dir, TestPicture(c.height, c.width, c.channels), c.cjpeg_flags);
  const Tensor want = DjpegDecode(dir, jpeg, c.djpeg_flags);
  Result<Tensor> got = DecodeJpeg(jpeg, c.options);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(got->dtype(), DType::kUInt8);
  EXPECT_EQ(got->shape(), c.expected_shape);
  EXPECT_TRUE(got->Equals(want)) << "decoded pixels differ from djpeg " << c.djpeg_flags;
}

constexpr JpegDctMethod kFast = JpegDctMethod::kFast;

INSTANTIATE_TEST_SUITE_P(
    Cases, DecodeJpegMatchesDjpeg,
    ::testing::Values(
        DjpegCase{"yuv420_accurate", 375, 500, 3, "-quality 90 -sample 2x2", {}, "-dct int", Shape{375, 500, 3}},
        DjpegCase{"yuv420_fast", 375, 500, 3, "-quality 90 -sample 2x2", {.dct_method = kFast}, "-dct fast",
                  Shape{375, 500, 3}},
        DjpegCase{"yuv444", 149, 227, 3, "-quality 95 -sample 1x1", {.channels = 3}, "", Shape{149, 227, 3}},
        DjpegCase{"yuv422_progressive_restart", 101, 203, 3, "-quality 75 -sample 2x1 -progressive -restart 1",
                  {}, "", Shape{101, 203, 3}},
        DjpegCase{"grayscale_as_encoded", 64, 48, 1, "-grayscale", {}, "", Shape{64, 48, 1}},
        DjpegCase{"grayscale_to_rgb", 64, 48, 1, "-grayscale", {.channels = 3}, "-rgb", Shape{64, 48, 3}},
        DjpegCase{"colour_to_grayscale", 80, 120, 3, "-sample 2x2", {.channels = 1}, "-grayscale",
                  Shape{80, 120, 1}},
        // Scaled IDCT: ceil(size / ratio), odd sizes.
        DjpegCase{"ratio2", 149, 227, 3, "-sample 2x2", {.ratio = 2}, "-scale 1/2", Shape{75, 114, 3}},
        DjpegCase{"ratio4_fast", 149, 227, 3, "-sample 2x2", {.ratio = 4, .dct_method = kFast},
                  "-scale 1/4 -dct fast", Shape{38, 57, 3}},
        DjpegCase{"ratio8", 149, 227, 3, "-sample 2x2", {.ratio = 8}, "-scale 1/8", Shape{19, 29, 3}},
        DjpegCase{"ratio2_grayscale", 65, 33, 1, "-grayscale", {.ratio = 2}, "-scale 1/2", Shape{33, 17, 1}}),
    [](const ::testing::TestParamInfo<DjpegCase>& info) { return std::string(info.param.label); });

class DecodeJpegErrors : public ::testing::Test {
 protected:
  void SetUp() override { jpeg_ = CjpegEncode(dir_, TestPicture(64, 96, 3), "-quality 90 -sample 2x2"); }
  TempDir dir_;
  std::string jpeg_;
};

TEST_F(DecodeJpegErrors, ZeroBytesIsDataLoss) {
  ExpectStatus(DecodeJpeg(""), StatusCode::kDataLoss, "empty");
}

TEST_F(DecodeJpegErrors, TruncatedIsDataLoss) {
  for (size_t keep : {size_t{2}, size_t{20}, jpeg_.size() / 2, jpeg_.size() - 2}) {
    SCOPED_TRACE(keep);
    ExpectStatus(DecodeJpeg(std::string_view(jpeg_).substr(0, keep)), StatusCode::kDataLoss,
                 "JPEG data: ");
  }
  ExpectStatus(DecodeJpeg(std::string_view(jpeg_).substr(0, jpeg_.size() / 2)), StatusCode::kDataLoss,
               "Premature end of JPEG file");
}

TEST_F(DecodeJpegErrors, CorruptIsDataLoss) {
  ExpectStatus(DecodeJpeg("this is not a JPEG file"), StatusCode::kDataLoss, "Not a JPEG file");
  // The frame header's sample precision (the byte after SOF0's length).
  std::string bad_precision = jpeg_;
  const size_t sof = bad_precision.find("\xFF\xC0");
  ASSERT_NE(sof, std::string::npos);
  bad_precision[sof + 4] = 7;
  ExpectStatus(DecodeJpeg(bad_precision), StatusCode::kDataLoss, "precision");
  // An end-of-image marker in the middle of the entropy-coded data.
  std::string cut_scan = jpeg_;
  cut_scan[cut_scan.size() / 2] = '\xFF';
  cut_scan[cut_scan.size() / 2 + 1] = '\xD9';
  ExpectStatus(DecodeJpeg(cut_scan), StatusCode::kDataLoss, "JPEG data: ");
}

TEST_F(DecodeJpegErrors, HeaderSizeIsBoundedBeforeDecoding) {
  ExpectStatus(DecodeJpeg(jpeg_, {.max_pixels = 64 * 96 - 1}), StatusCode::kResourceExhausted,
               "64x96 pixels exceeds the limit of 6143 pixels");
  EXPECT_TRUE(DecodeJpeg(jpeg_, {.max_pixels = 64 * 96}).ok());
  // A header claiming 65500 x 65500 (libjpeg's largest) in a small file.
  std::string huge = jpeg_;
  const size_t sof = huge.find("\xFF\xC0");
  ASSERT_NE(sof, std::string::npos);
  for (size_t i : {sof + 5, sof + 7}) huge.replace(i, 2, "\xFF\xDC");
  ExpectStatus(DecodeJpeg(huge), StatusCode::kResourceExhausted, "65500x65500 pixels exceeds the limit");
}

TEST(DecodeJpegOptions, InvalidOptionsAreRejected) {
  ExpectStatus(DecodeJpeg("x", {.channels = 2}), StatusCode::kInvalidArgument, "channels must be 0, 1 or 3, got 2");
  ExpectStatus(DecodeJpeg("x", {.ratio = 3}), StatusCode::kInvalidArgument, "ratio must be 1, 2, 4 or 8, got 3");
  ExpectStatus(DecodeJpeg("x", {.max_pixels = 0}), StatusCode::kInvalidArgument, "max_pixels must be > 0");
}

TEST(DecodeJpegOptions, DctMethodNamesRoundTrip) {
  for (JpegDctMethod method : {JpegDctMethod::kAccurate, JpegDctMethod::kFast}) {
    Result<JpegDctMethod> parsed = ParseJpegDctMethod(JpegDctMethodName(method));
    ASSERT_TRUE(parsed.ok());
    EXPECT_EQ(*parsed, method);
  }
  EXPECT_EQ(ParseJpegDctMethod("float").status().code(), StatusCode::kInvalidArgument);
}

// DecodeJpegCrop's window equals the same window of a full decode, wherever
// it sits against the iMCU grid.
TEST(DecodeJpegCrop, EqualsTheWindowOfAFullDecode) {
  TempDir dir;
  struct File {
    const char* flags;
    int64_t channels;
  };
  for (const File& file : {File{"-quality 90 -sample 2x2", 3}, File{"-sample 1x1 -progressive", 3},
                           File{"-grayscale", 1}}) {
    const std::string jpeg = CjpegEncode(dir, TestPicture(99, 131, file.channels), file.flags);
    for (int ratio : {1, 2}) {
      const DecodeJpegOptions options{.ratio = ratio};
      const Tensor full = *DecodeJpeg(jpeg, options);
      const int64_t h = full.dim(0), w = full.dim(1);
      for (const CropWindow& window :
           {CropWindow{.top = 0, .left = 0, .height = h, .width = w}, CropWindow{.top = 16, .left = 32, .height = 20, .width = 16},
            CropWindow{.top = 7, .left = 5, .height = 30, .width = 41}, CropWindow{.top = h - 9, .left = w - 13, .height = 9, .width = 13},
            CropWindow{.top = 1, .left = 15, .height = 1, .width = 1}}) {
        SCOPED_TRACE(::testing::Message() << file.flags << " ratio " << ratio << " window " << window.height << "x"
                                          << window.width << "+" << window.left << "+" << window.top);
        Result<Tensor> got = DecodeJpegCrop(
            jpeg, [&](int64_t height, int64_t width) -> Result<CropWindow> {
              EXPECT_EQ(height, h);
              EXPECT_EQ(width, w);
              return window;
            },
            options);
        ASSERT_TRUE(got.ok()) << got.status();
        EXPECT_TRUE(got->Equals(*CropImage(full, window)));
        // The rows DecodeJpegCrop copies the window out of: whole iMCU
        // columns around it, the window's rows only.
        Result<DecodedJpegWindow> rows = DecodeJpegCropRows(
            jpeg, [&](int64_t, int64_t) -> Result<CropWindow> { return window; }, options);
        ASSERT_TRUE(rows.ok()) << rows.status();
        EXPECT_EQ(rows->rows.dim(0), window.height);
        EXPECT_GE(rows->rows.dim(1), window.width);
        EXPECT_EQ(rows->window.top, 0);
        EXPECT_EQ(rows->window.height, window.height);
        EXPECT_EQ(rows->window.width, window.width);
        EXPECT_LE(rows->window.left + rows->window.width, rows->rows.dim(1));
        EXPECT_TRUE(CropImage(rows->rows, rows->window)->Equals(*got));
      }
    }
  }
}

// With a resize target, DecodeJpegCrop decodes the window at the scale
// JpegCropScale picks: its pixels equal djpeg's decode at that scale, in the
// window ScaleCropWindow maps it to.
TEST(DecodeJpegCrop, ScaledWindowEqualsDjpegAtThatScale) {
  TempDir dir;
  for (const char* flags : {"-quality 90 -sample 2x2", "-sample 2x1", "-sample 1x1 -progressive"}) {
    const std::string jpeg = CjpegEncode(dir, TestPicture(203, 251, 3), flags);
    const CropWindow window{.top = 13, .left = 21, .height = 180, .width = 200};
    // Targets floor(180 * M / 8) for M = 1..8: scales 1/8 to 4/8, then full
    // size (JpegCropScale skips 5/8 to 7/8).
    for (int64_t target : {22, 45, 67, 90, 112, 135, 157, 180}) {
      const int m = JpegCropScale(window, target, target);
      SCOPED_TRACE(::testing::Message() << flags << " target " << target << " scale " << m << "/8");
      Result<Tensor> got = DecodeJpegCrop(
          jpeg, [&](int64_t height, int64_t width) -> Result<CropWindow> {
            EXPECT_EQ(height, 203);
            EXPECT_EQ(width, 251);
            return window;
          },
          {.channels = 3}, {.height = target, .width = target});
      ASSERT_TRUE(got.ok()) << got.status();
      const CropWindow scaled = ScaleCropWindow(window, m);
      EXPECT_EQ(got->shape(), (Shape{scaled.height, scaled.width, 3}));
      EXPECT_GE(scaled.height, target);
      const Tensor want = DjpegDecode(dir, jpeg, "-scale " + std::to_string(m) + "/8");
      EXPECT_TRUE(got->Equals(*CropImage(want, scaled)));
    }
  }
}

TEST(DecodeJpegCrop, ErrorsOfTheWindowAndTheData) {
  TempDir dir;
  const std::string jpeg = CjpegEncode(dir, TestPicture(40, 50, 3), "-sample 2x2");
  auto window = [](CropWindow w) { return [w](int64_t, int64_t) -> Result<CropWindow> { return w; }; };
  ExpectStatus(DecodeJpegCrop(jpeg, window({.top = 30, .left = 0, .height = 11, .width = 5})),
               StatusCode::kInvalidArgument, "crop window 11x5 at (30, 0) is not inside the image of 40x50");
  ExpectStatus(DecodeJpegCrop(jpeg, [](int64_t, int64_t) -> Result<CropWindow> { return InternalError("no window"); }),
               StatusCode::kInternal, "no window");
  ExpectStatus(DecodeJpegCrop(std::string_view(jpeg).substr(0, jpeg.size() / 3),
                              window({.top = 30, .left = 0, .height = 10, .width = 50})),
               StatusCode::kDataLoss, "JPEG data: ");
  ExpectStatus(DecodeJpegCrop("", window({})), StatusCode::kDataLoss, "empty");
  const CropResizeTarget target{.height = 4, .width = 4};
  ExpectStatus(DecodeJpegCrop(jpeg, window({.top = 0, .left = 0, .height = 40, .width = 50}), {.ratio = 2}, target),
               StatusCode::kInvalidArgument, "the decode ratio must be 1, got 2");
  ExpectStatus(DecodeJpegCrop(std::string_view(jpeg).substr(0, jpeg.size() / 3),
                              window({.top = 30, .left = 0, .height = 10, .width = 50}), {}, target),
               StatusCode::kDataLoss, "JPEG data: ");
}

}  // namespace
}  // namespace sluice
