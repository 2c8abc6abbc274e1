// Writes a test's input file: `bytes` as the file `name` in `dir`,
// compressed as asked; returns its path.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "sluice/tests/temp_dir.h"
#include "sluice/tfrecord/output_stream.h"
#include "sluice/tfrecord/zlib_output_stream.h"

namespace sluice::testing {

inline std::string WriteFile(const TempDir& dir, const std::string& name, const std::string& bytes,
                             Compression compression = Compression::kNone) {
  const std::string path = dir.File(name);
  Result<std::unique_ptr<OutputStream>> opened = OpenFileOutputStream(path);
  EXPECT_TRUE(opened.ok()) << opened.status();
  if (!opened.ok()) return path;
  std::unique_ptr<OutputStream> out = std::move(*opened);
  if (compression != Compression::kNone) out = MakeZlibOutputStream(std::move(out), compression);
  EXPECT_TRUE(out->Write(bytes.data(), bytes.size()).ok());
  EXPECT_TRUE(out->Close().ok());
  return path;
}

}  // namespace sluice::testing
