// How the JPEG kernels (decode_jpeg.cc, encode_jpeg.cc) take libjpeg's
// errors: libjpeg reports an error through error_exit, which must not return,
// so JpegErrorExit formats the message and longjmps back to the setjmp on
// `jump` of the step that called into libjpeg. Those steps hold only
// trivially destructible locals, so the jump skips no destructor. Nothing is
// written to stderr. Internal to ops/.
// Thread safety: one manager per compressor or decompressor.
#pragma once

// jpeglib.h needs FILE and size_t declared first.
#include <csetjmp>
#include <cstdio>

#include <jpeglib.h>

namespace sluice {

struct JpegErrorManager {
  jpeg_error_mgr pub;  // first: libjpeg sees a jpeg_error_mgr*
  std::jmp_buf jump;
  char message[JMSG_LENGTH_MAX];
};

[[noreturn]] inline void JpegErrorExit(j_common_ptr cinfo) {
  auto* err = reinterpret_cast<JpegErrorManager*>(cinfo->err);
  (*cinfo->err->format_message)(cinfo, err->message);
  std::longjmp(err->jump, 1);
}

inline void JpegSilentOutput(j_common_ptr /*cinfo*/) {}

// Sets `err` up (JpegErrorExit, no output) and returns the pointer a
// jpeg_compress_struct's or jpeg_decompress_struct's `err` takes.
inline jpeg_error_mgr* InstallJpegErrorManager(JpegErrorManager& err) {
  jpeg_error_mgr* pub = jpeg_std_error(&err.pub);
  pub->error_exit = JpegErrorExit;
  pub->output_message = JpegSilentOutput;
  return pub;
}

}  // namespace sluice
