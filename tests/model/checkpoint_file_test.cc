#include "sluice/model/checkpoint_file.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <limits>

#include "sluice/tests/temp_dir.h"
#include "sluice/tests/tfrecord/corpus.h"
#include "sluice/tfrecord/crc32c.h"

namespace sluice {
namespace {

using ::sluice::testing::ReadFileBytes;
using ::sluice::testing::TempDir;
using ::testing::HasSubstr;

void WriteFileBytes(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

// A tensor of every dtype, with awkward values: NaN payloads, -0.0,
// extremes, empty and binary strings, an empty tensor.
CheckpointContents EveryDType() {
  CheckpointContents contents;
  float nan_payload;
  const uint32_t nan_bits = 0x7fc12345;
  std::memcpy(&nan_payload, &nan_bits, sizeof(nan_payload));
  contents.tensors["bool"] = Tensor::FromVector<bool>({true, false, true}, {3});
  contents.tensors["uint8"] = Tensor::FromVector<uint8_t>({0, 255});
  contents.tensors["int32"] =
      Tensor::FromVector<int32_t>({std::numeric_limits<int32_t>::min(), -1, 7});
  contents.tensors["int64"] =
      Tensor::FromVector<int64_t>({std::numeric_limits<int64_t>::max(), -2, 0, 1}, {2, 2});
  contents.tensors["float16"] = Tensor::FromVector<Float16>({Float16(1.5f), Float16(-0.0f)});
  contents.tensors["bfloat16"] = Tensor::FromVector<BFloat16>({BFloat16(3.25f)});
  contents.tensors["float32"] = Tensor::FromVector<float>(
      {nan_payload, -0.0f, std::numeric_limits<float>::denorm_min(), 1e38f, -1.f, 2.f}, {2, 1, 3});
  contents.tensors["float64"] = Tensor::Scalar(3.141592653589793);
  contents.tensors["string"] =
      Tensor::FromVector<std::string>({"", std::string("a\0b", 3), std::string(1000, 'x')});
  contents.tensors["empty"] = Tensor::Allocate(DType::kFloat32, Shape{0, 4});
  contents.scalars = {{"step", 1234}, {"epoch", -1}, {"big", std::numeric_limits<int64_t>::min()}};
  contents.blobs = {{"iterator", std::string("\x00\xff state", 8)}, {"empty", ""}};
  return contents;
}

// Bit-exact equality, shapes and dtypes included.
void ExpectSameContents(const CheckpointContents& a, const CheckpointContents& b) {
  ASSERT_EQ(a.tensors.size(), b.tensors.size());
  for (const auto& [name, tensor] : a.tensors) {
    SCOPED_TRACE(name);
    ASSERT_TRUE(b.tensors.contains(name));
    const Tensor& other = b.tensors.at(name);
    ASSERT_EQ(tensor.dtype(), other.dtype());
    ASSERT_EQ(tensor.shape(), other.shape());
    if (tensor.dtype() == DType::kString) {
      EXPECT_TRUE(tensor.Equals(other)) << other.DebugString();
    } else {
      EXPECT_EQ(std::memcmp(tensor.raw_data(), other.raw_data(), tensor.NumBytes()), 0);
    }
  }
  EXPECT_EQ(a.scalars, b.scalars);
  EXPECT_EQ(a.blobs, b.blobs);
}

TEST(CheckpointFileTest, RoundTripsEveryDTypeBitForBit) {
  TempDir dir;
  const std::string path = dir.File("a.sluice");
  const CheckpointContents contents = EveryDType();
  ASSERT_TRUE(WriteCheckpointFile(path, contents).ok());
  Result<CheckpointContents> read = ReadCheckpointFile(path);
  ASSERT_TRUE(read.ok()) << read.status();
  ExpectSameContents(contents, *read);
}

TEST(CheckpointFileTest, RoundTripsAViewAndEmptyContents) {
  TempDir dir;
  CheckpointContents contents;
  // A slice is a view at an offset into a larger buffer: only its rows are saved.
  contents.tensors["rows"] = Tensor::FromVector<int64_t>({0, 1, 2, 3, 4, 5}, {3, 2}).Slice(1, 3);
  ASSERT_TRUE(WriteCheckpointFile(dir.File("view"), contents).ok());
  Result<CheckpointContents> read = ReadCheckpointFile(dir.File("view"));
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_TRUE(read->tensors.at("rows").Equals(Tensor::FromVector<int64_t>({2, 3, 4, 5}, {2, 2})));

  ASSERT_TRUE(WriteCheckpointFile(dir.File("empty"), {}).ok());
  read = ReadCheckpointFile(dir.File("empty"));
  ASSERT_TRUE(read.ok()) << read.status();
  ExpectSameContents({}, *read);
}

TEST(CheckpointFileTest, HeaderLayout) {
  TempDir dir;
  const std::string path = dir.File("a.sluice");
  ASSERT_TRUE(WriteCheckpointFile(path, EveryDType()).ok());
  const std::string bytes = ReadFileBytes(path);
  ASSERT_GT(bytes.size(), 24u);
  EXPECT_EQ(bytes.substr(0, 8), "SLUICKPT");
  EXPECT_EQ(bytes.substr(8, 4), std::string("\x01\x00\x00\x00", 4));
  uint64_t payload_size;
  std::memcpy(&payload_size, bytes.data() + 12, 8);
  EXPECT_EQ(payload_size, bytes.size() - 24);
}

TEST(CheckpointFileTest, EveryCorruptByteIsDataLossNamingTheFile) {
  TempDir dir;
  const std::string path = dir.File("a.sluice");
  CheckpointContents contents;
  contents.tensors["w"] = Tensor::FromVector<float>({1, 2, 3});
  contents.scalars["step"] = 5;
  contents.blobs["rng"] = "seed";
  ASSERT_TRUE(WriteCheckpointFile(path, contents).ok());
  const std::string original = ReadFileBytes(path);
  for (size_t offset = 0; offset < original.size(); ++offset) {
    SCOPED_TRACE(offset);
    std::string damaged = original;
    damaged[offset] ^= 0x20;
    WriteFileBytes(path, damaged);
    Result<CheckpointContents> read = ReadCheckpointFile(path);
    ASSERT_FALSE(read.ok());
    EXPECT_EQ(read.status().code(), StatusCode::kDataLoss);
    EXPECT_THAT(read.status().message(), HasSubstr("Checkpoint " + path + ": "));
  }
}

TEST(CheckpointFileTest, NewerFormatVersionIsUnimplemented) {
  TempDir dir;
  const std::string path = dir.File("a.sluice");
  ASSERT_TRUE(WriteCheckpointFile(path, EveryDType()).ok());
  // A whole file of version 2: the version changed and the CRC recomputed.
  std::string bytes = ReadFileBytes(path);
  bytes[8] = 2;
  const uint32_t crc = crc32c::Mask(
      crc32c::Extend(crc32c::Value(bytes.data(), 20), bytes.data() + 24, bytes.size() - 24));
  std::memcpy(bytes.data() + 20, &crc, sizeof(crc));
  WriteFileBytes(path, bytes);
  const Status status = ReadCheckpointFile(path).status();
  EXPECT_EQ(status.code(), StatusCode::kUnimplemented);
  EXPECT_THAT(status.message(), HasSubstr("format version 2; this build reads version 1"));
}

TEST(CheckpointFileTest, TruncatedFileIsDataLoss) {
  TempDir dir;
  const std::string path = dir.File("a.sluice");
  ASSERT_TRUE(WriteCheckpointFile(path, EveryDType()).ok());
  const std::string original = ReadFileBytes(path);
  for (size_t size :
       {size_t{0}, size_t{10}, size_t{24}, original.size() / 2, original.size() - 1}) {
    SCOPED_TRACE(size);
    WriteFileBytes(path, original.substr(0, size));
    Result<CheckpointContents> read = ReadCheckpointFile(path);
    ASSERT_FALSE(read.ok());
    EXPECT_EQ(read.status().code(), StatusCode::kDataLoss);
    EXPECT_THAT(read.status().message(), HasSubstr(path));
  }
  WriteFileBytes(path, original.substr(0, 100));
  EXPECT_THAT(ReadCheckpointFile(path).status().message(), HasSubstr("truncated or damaged"));
  WriteFileBytes(path, original + "x");  // trailing bytes are damage too
  EXPECT_EQ(ReadCheckpointFile(path).status().code(), StatusCode::kDataLoss);
}

TEST(CheckpointFileTest, MissingFileIsNotFound) {
  TempDir dir;
  Result<CheckpointContents> read = ReadCheckpointFile(dir.File("nope.sluice"));
  EXPECT_EQ(read.status().code(), StatusCode::kNotFound);
  EXPECT_THAT(read.status().message(), HasSubstr(dir.File("nope.sluice")));
}

TEST(CheckpointFileTest, InvalidTensorIsRejectedAndNothingIsWritten) {
  TempDir dir;
  CheckpointContents contents;
  contents.tensors["bad"] = Tensor();
  const Status status = WriteCheckpointFile(dir.File("a.sluice"), contents);
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("tensor \"bad\" is invalid"));
  EXPECT_TRUE(std::filesystem::is_empty(dir.path()));
}

TEST(CheckpointFileTest, ReplacesAnOldFileAndLeavesNoTemporaryFile) {
  TempDir dir;
  const std::string path = dir.File("a.sluice");
  CheckpointContents first;
  first.scalars["step"] = 1;
  CheckpointContents second;
  second.scalars["step"] = 2;
  ASSERT_TRUE(WriteCheckpointFile(path, first).ok());
  ASSERT_TRUE(WriteCheckpointFile(path, second).ok());
  EXPECT_EQ(ReadCheckpointFile(path)->scalars.at("step"), 2);
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir.path())) {
    EXPECT_EQ(entry.path().filename(), "a.sluice");
    ++files;
  }
  EXPECT_EQ(files, 1);
}

TEST(CheckpointFileTest, MissingDirectoryIsAnErrorNamingThePath) {
  TempDir dir;
  const Status status = WriteCheckpointFile(dir.File("no/such/dir/a.sluice"), {});
  EXPECT_EQ(status.code(), StatusCode::kNotFound);
  EXPECT_THAT(status.message(), HasSubstr(dir.File("no/such/dir/a.sluice.tmp-")));
}

}  // namespace
}  // namespace sluice
