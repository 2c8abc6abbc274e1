// Helpers shared by the image tests: synthetic test pictures, files, PNM
// (PPM/PGM) reading and writing, and libjpeg-turbo's own cjpeg/djpeg run on
// them, whose outputs are the reference pixels for the decoders.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "sluice/core/tensor.h"
#include "temp_dir.h"

namespace sluice::testing {

inline std::string ReadFileBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

inline void WriteFileBytes(const std::string& path, std::string_view bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// A uint8 [height, width, channels] picture with smooth gradients, edges
// and some noise, so that chroma subsampling and the IDCT have work to do.
inline Tensor TestPicture(int64_t height, int64_t width, int64_t channels, uint32_t seed = 1) {
  Tensor t = Tensor::Allocate(DType::kUInt8, Shape{height, width, channels});
  uint8_t* p = t.mutable_data<uint8_t>();
  uint32_t state = seed * 2654435761u + 1;
  for (int64_t y = 0; y < height; ++y) {
    for (int64_t x = 0; x < width; ++x) {
      for (int64_t c = 0; c < channels; ++c) {
        state = state * 1664525u + 1013904223u;
        const int64_t smooth = (x * (3 + c) + y * (5 - c)) % 256;
        const int64_t edge = ((x / 16 + y / 16) % 2) * 60;
        const int64_t noise = static_cast<int64_t>(state >> 28);
        *p++ = static_cast<uint8_t>((smooth + edge + noise) % 256);
      }
    }
  }
  return t;
}

// `count` distinct pictures stacked, [count, height, width, channels]:
// picture i is TestPicture(height, width, channels, i).
inline Tensor TestPictures(int64_t count, int64_t height, int64_t width, int64_t channels) {
  Tensor t = Tensor::Allocate(DType::kUInt8, Shape{count, height, width, channels});
  for (int64_t i = 0; i < count; ++i) {
    CopyIntoRows(TestPicture(height, width, channels, static_cast<uint32_t>(i)), t, i);
  }
  return t;
}

// Binary PNM: P5 for one channel, P6 for three.
inline std::string EncodePnm(const Tensor& image) {
  const int64_t h = image.dim(0), w = image.dim(1), c = image.dim(2);
  std::string out = (c == 1 ? "P5\n" : "P6\n") + std::to_string(w) + " " + std::to_string(h) + "\n255\n";
  out.append(reinterpret_cast<const char*>(image.data<uint8_t>()), image.NumBytes());
  return out;
}

// The pixels of a binary P5/P6 file with maxval 255 (as djpeg writes).
inline Tensor DecodePnm(const std::string& bytes) {
  std::istringstream in(bytes);
  std::string magic;
  int64_t w = 0, h = 0, maxval = 0;
  in >> magic >> w >> h >> maxval;
  in.get();  // the one whitespace byte before the pixels
  EXPECT_TRUE((magic == "P5" || magic == "P6") && maxval == 255) << "not a PNM djpeg writes: " << magic;
  const int64_t c = magic == "P5" ? 1 : 3;
  Tensor t = Tensor::Allocate(DType::kUInt8, Shape{h, w, c});
  in.read(reinterpret_cast<char*>(t.mutable_data<uint8_t>()), static_cast<std::streamsize>(t.NumBytes()));
  EXPECT_EQ(in.gcount(), static_cast<std::streamsize>(t.NumBytes())) << "short PNM";
  return t;
}

// Runs a shell command; fails the test when it does not exit 0.
inline void RunCommand(const std::string& command) {
  const int rc = std::system(command.c_str());
  ASSERT_EQ(rc, 0) << "command failed (libjpeg-turbo-progs installed? scripts/install_deps.sh): " << command;
}

// `picture` encoded by cjpeg with `flags` (e.g. "-quality 90 -sample 2x2").
inline std::string CjpegEncode(const TempDir& dir, const Tensor& picture, const std::string& flags) {
  const std::string ppm = dir.File("in.pnm"), jpg = dir.File("out.jpg");
  WriteFileBytes(ppm, EncodePnm(picture));
  RunCommand("cjpeg " + flags + " -outfile " + jpg + " " + ppm);
  return ReadFileBytes(jpg);
}

// What djpeg with `flags` (e.g. "-dct fast -scale 1/2") decodes from `jpeg`.
inline Tensor DjpegDecode(const TempDir& dir, const std::string& jpeg, const std::string& flags) {
  const std::string jpg = dir.File("ref.jpg"), pnm = dir.File("ref.pnm");
  WriteFileBytes(jpg, jpeg);
  RunCommand("djpeg -pnm " + flags + " -outfile " + pnm + " " + jpg);
  return DecodePnm(ReadFileBytes(pnm));
}

}  // namespace sluice::testing
