#include "sluice/ops/decode_png.h"

#include <png.h>

#include <cstdio>
#include <cstring>
#include <vector>

namespace sluice {
namespace {

// libpng reports errors through its error function, which must not return:
// it longjmps (png_longjmp) back to the setjmp of the step that called into
// libpng. The steps are the only frames between a setjmp and libpng, and
// they hold only trivially destructible locals, so the jump skips no
// destructor; the reader's destructor frees libpng's state on every path.
class PngReader {
 public:
  explicit PngReader(std::string_view bytes) : bytes_(bytes) {}
  ~PngReader() {
    if (png_ != nullptr) png_destroy_read_struct(&png_, info_ != nullptr ? &info_ : nullptr, nullptr);
  }
  PngReader(const PngReader&) = delete;
  PngReader& operator=(const PngReader&) = delete;

  Status Error() const { return DataLossError("PNG data: ", message_); }
  png_structp png() const { return png_; }
  png_infop info() const { return info_; }

  // Each step returns false when libpng reported an error (Error()).
  bool Create() {
    png_ = png_create_read_struct(PNG_LIBPNG_VER_STRING, this, ErrorFn, WarningFn);
    if (png_ == nullptr) return SetMessage("cannot create a libpng reader");
    info_ = png_create_info_struct(png_);
    if (info_ == nullptr) return SetMessage("cannot create a libpng info struct");
    return true;
  }
  bool ReadHeader() {
    if (setjmp(png_jmpbuf(png_))) return false;
    png_set_read_fn(png_, this, ReadFn);
    png_read_info(png_, info_);
    return true;
  }
  // Sets the transforms that give `channels` uint8 channels (0: as encoded)
  // from an image of at most 8 bits per channel; *out_channels is what the
  // rows will hold.
  bool Configure(int channels, int* out_channels) {
    if (setjmp(png_jmpbuf(png_))) return false;
    const int color_type = png_get_color_type(png_, info_);
    const int bit_depth = png_get_bit_depth(png_, info_);
    const bool has_trns = png_get_valid(png_, info_, PNG_INFO_tRNS) != 0;
    const bool is_color = (color_type & PNG_COLOR_MASK_COLOR) != 0;
    const bool has_alpha = (color_type & PNG_COLOR_MASK_ALPHA) != 0 || has_trns;
    if (color_type == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(png_);
    if (color_type == PNG_COLOR_TYPE_GRAY && bit_depth < 8) png_set_expand_gray_1_2_4_to_8(png_);
    if (has_trns) png_set_tRNS_to_alpha(png_);
    if (channels == 1 && is_color) png_set_rgb_to_gray_fixed(png_, /*error_action=*/1, -1, -1);
    if ((channels == 3 || channels == 4) && !is_color) png_set_gray_to_rgb(png_);
    if ((channels == 1 || channels == 3) && has_alpha) png_set_strip_alpha(png_);
    if (channels == 4 && !has_alpha) png_set_add_alpha(png_, 0xff, PNG_FILLER_AFTER);
    png_set_interlace_handling(png_);
    png_read_update_info(png_, info_);
    *out_channels = png_get_channels(png_, info_);
    return true;
  }
  // Reads the image into `rows` (one pointer per row), then the chunks after
  // it up to the end marker.
  bool ReadImage(png_bytepp rows) {
    if (setjmp(png_jmpbuf(png_))) return false;
    png_read_image(png_, rows);
    png_read_end(png_, nullptr);
    return true;
  }

 private:
  bool SetMessage(const char* message) {
    std::snprintf(message_, sizeof(message_), "%s", message);
    return false;
  }
  static void ErrorFn(png_structp png, png_const_charp message) {
    static_cast<PngReader*>(png_get_error_ptr(png))->SetMessage(message);
    png_longjmp(png, 1);
  }
  // Warnings are about ancillary data (a bad colour profile, an unknown
  // chunk); the pixels are still right.
  static void WarningFn(png_structp /*png*/, png_const_charp /*message*/) {}
  static void ReadFn(png_structp png, png_bytep out, png_size_t length) {
    auto* reader = static_cast<PngReader*>(png_get_io_ptr(png));
    if (length > reader->bytes_.size() - reader->offset_) png_error(png, "truncated data");
    std::memcpy(out, reader->bytes_.data() + reader->offset_, length);
    reader->offset_ += length;
  }

  const std::string_view bytes_;
  size_t offset_ = 0;
  png_structp png_ = nullptr;
  png_infop info_ = nullptr;
  char message_[256] = {};
};

}  // namespace

Status CheckDecodePngOptions(const DecodePngOptions& options) {
  if (options.channels != 0 && options.channels != 1 && options.channels != 3 &&
      options.channels != 4) {
    return InvalidArgumentError("channels must be 0, 1, 3 or 4, got ", options.channels);
  }
  return CheckMaxPixels(options.max_pixels);
}

Result<Tensor> DecodePng(std::string_view bytes, const DecodePngOptions& options) {
  SLUICE_RETURN_IF_ERROR(CheckDecodePngOptions(options));
  if (bytes.empty()) return DataLossError("PNG data is empty (0 bytes)");
  if (bytes.size() < 8 || png_sig_cmp(reinterpret_cast<png_const_bytep>(bytes.data()), 0, 8) != 0) {
    return DataLossError("PNG data does not start with the PNG signature");
  }
  PngReader reader(bytes);
  if (!reader.Create() || !reader.ReadHeader()) return reader.Error();
  const int64_t height = png_get_image_height(reader.png(), reader.info());
  const int64_t width = png_get_image_width(reader.png(), reader.info());
  SLUICE_RETURN_IF_ERROR(ImageShape("PNG image", height, width, 1, options.max_pixels).status());
  if (png_get_bit_depth(reader.png(), reader.info()) > 8) {
    return UnimplementedError("PNG image has 16 bits per channel; only 8-bit images are decoded "
                              "(the output is uint8)");
  }
  int channels = 0;
  if (!reader.Configure(options.channels, &channels)) return reader.Error();
  SLUICE_ASSIGN_OR_RETURN(const Shape shape,
                          ImageShape("PNG image", height, width, channels, options.max_pixels));
  Tensor::AllocateOptions allocate;
  allocate.fill = Buffer::Fill::kUninitialized;
  SLUICE_ASSIGN_OR_RETURN(Tensor out, Tensor::TryAllocate(DType::kUInt8, shape, allocate));
  const size_t stride = static_cast<size_t>(width) * channels;
  if (png_get_rowbytes(reader.png(), reader.info()) != stride) {
    return InternalError("PNG reader: rows of ", png_get_rowbytes(reader.png(), reader.info()),
                         " bytes, expected ", stride);
  }
  std::vector<png_bytep> rows(static_cast<size_t>(height));
  for (int64_t y = 0; y < height; ++y) rows[y] = out.mutable_data<uint8_t>() + y * stride;
  if (!reader.ReadImage(rows.data())) return reader.Error();
  return out;
}

}  // namespace sluice
