#include "sluice/ops/decode_raw.h"

#include <gtest/gtest.h>

namespace sluice {
namespace {

Tensor Strings(const std::vector<std::string>& values, const Shape& shape) { return Tensor::FromVector(values, shape); }

template <typename T>
std::vector<T> Values(const Tensor& t) {
  return std::vector<T>(t.data<T>(), t.data<T>() + t.NumElements());
}

// tf.io.decode_raw's documented behaviour: each string's bytes as values,
// the strings' shape plus one dim.
TEST(DecodeRawTest, BytesBecomeValuesOfTheDtype) {
  const Tensor bytes = *DecodeRaw(Tensor::Scalar(std::string("\x01\x02\xff", 3)), {.dtype = DType::kUInt8});
  EXPECT_EQ(bytes.shape(), (Shape{3}));
  EXPECT_EQ(Values<uint8_t>(bytes), (std::vector<uint8_t>{1, 2, 255}));

  const Tensor ints = *DecodeRaw(
      Strings({std::string("\x01\x00\x00\x00\x02\x01\x00\x00", 8), std::string("\xff\xff\xff\xff\x00\x00\x00\x80", 8)},
              Shape{2}),
      {.dtype = DType::kInt32});
  EXPECT_EQ(ints.shape(), (Shape{2, 2}));
  EXPECT_EQ(Values<int32_t>(ints), (std::vector<int32_t>{1, 258, -1, std::numeric_limits<int32_t>::min()}));

  const Tensor big =
      *DecodeRaw(Tensor::Scalar(std::string("\x00\x00\x01\x02", 4)), {.dtype = DType::kInt32, .little_endian = false});
  EXPECT_EQ(Values<int32_t>(big), (std::vector<int32_t>{258}));

  float one = 1.0f;
  std::string one_bytes(reinterpret_cast<const char*>(&one), sizeof(one));
  EXPECT_EQ(Values<float>(*DecodeRaw(Tensor::Scalar(one_bytes + one_bytes), {.dtype = DType::kFloat32})),
            (std::vector<float>{1.0f, 1.0f}));

  const Tensor empty = *DecodeRaw(Tensor::Scalar(std::string()), {.dtype = DType::kInt64});
  EXPECT_EQ(empty.shape(), (Shape{0}));
  EXPECT_EQ(DecodeRaw(Strings({}, Shape{0}), {.dtype = DType::kInt64})->shape(), (Shape{0, 0}));
  EXPECT_EQ(Values<bool>(*DecodeRaw(Tensor::Scalar(std::string("\x00\x07", 2)), {.dtype = DType::kBool})),
            (std::vector<bool>{false, true}));
}

TEST(DecodeRawTest, FixedLengthCutsOrPads) {
  const Tensor out = *DecodeRaw(Strings({"abcdef", "xy"}, Shape{2}), {.dtype = DType::kUInt8, .fixed_length = 4});
  EXPECT_EQ(out.shape(), (Shape{2, 4}));
  EXPECT_EQ(Values<uint8_t>(out), (std::vector<uint8_t>{'a', 'b', 'c', 'd', 'x', 'y', 0, 0}));
}

TEST(DecodeRawTest, ErrorsNameTheStringAndItsLength) {
  EXPECT_EQ(DecodeRaw(Strings({"abcd", "abc"}, Shape{2}), {.dtype = DType::kUInt8}).status().message(),
            "decode_raw: DecodeRaw requires input strings to all be the same size, but element 1 has size 3 != 4");
  EXPECT_EQ(DecodeRaw(Tensor::Scalar(std::string("abcde")), {.dtype = DType::kFloat32}).status().message(),
            "decode_raw: Input to DecodeRaw has length 5 that is not a multiple of 4, the size of float32");
  EXPECT_EQ(DecodeRaw(Tensor::Scalar<int64_t>(1), {.dtype = DType::kUInt8}).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(CheckDecodeRawOptions({.dtype = DType::kString}).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(CheckDecodeRawOptions({.dtype = DType::kInt32, .fixed_length = 6}).message(),
            "decode_raw: fixed_length must be 0 to 4294967296 bytes and a multiple of 4 (the size of int32), got 6");
  EXPECT_EQ(CheckDecodeRawOptions({.dtype = DType::kUInt8, .fixed_length = int64_t{1} << 40}).code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(
      DecodeRaw(Tensor::Scalar(std::string(100, 'x')), {.dtype = DType::kUInt8}, {.max_bytes = 10}).status().code(),
      StatusCode::kResourceExhausted);
}

}  // namespace
}  // namespace sluice
