#include "sluice/dataset/tensor_proto.h"

#include <cmath>

#include "sluice/dataset/pipeline_spec.pb.h"
#include "sluice/tests/dataset/contract.h"

namespace sluice {
namespace {

// A constant of `dtype` and `shape` with `values` in int_values (int64
// values) or float_values (double values).
template <typename V>
spec::TensorProto Proto(std::string dtype, std::vector<int64_t> shape, std::vector<V> values) {
  spec::TensorProto proto;
  proto.set_dtype(std::move(dtype));
  for (int64_t d : shape) proto.add_shape(d);
  for (V v : values) {
    if constexpr (std::is_integral_v<V>) {
      proto.add_int_values(v);
    } else {
      proto.add_float_values(v);
    }
  }
  return proto;
}
spec::TensorProto Ints(std::string dtype, std::vector<int64_t> shape, std::vector<int64_t> values) {
  return Proto(std::move(dtype), std::move(shape), std::move(values));
}
spec::TensorProto Floats(std::string dtype, std::vector<int64_t> shape, std::vector<double> values) {
  return Proto(std::move(dtype), std::move(shape), std::move(values));
}

TEST(TensorProtoTest, RoundTrip) {
  for (const Tensor& t : {Tensor::FromVector<int32_t>({-2147483647 - 1, 2147483647}),
                          Tensor::FromVector<uint8_t>({0, 255}, Shape{2, 1}), Tensor::Scalar<bool>(true),
                          Tensor::FromVector<float>({1.5f, -INFINITY}), Tensor::Scalar("text")}) {
    spec::TensorProto proto;
    TensorToProto(t, &proto);
    Result<Tensor> back = TensorFromProto(proto);
    ASSERT_TRUE(back.ok()) << back.status();
    EXPECT_TRUE(back->Equals(t)) << back->DebugString() << " vs " << t.DebugString();
  }
}

// A value the dtype can't hold is rejected, naming the value, where it is,
// the dtype and its range, never truncated (int32 4294967297 is not 1).
TEST(TensorProtoTest, OutOfRangeValuesAreRejected) {
  testing::ExpectStatus(TensorFromProto(Ints("int32", {2}, {1, 4294967297})).status(), StatusCode::kInvalidArgument,
                        "tensor constant int32[2]: int_values[1] = 4294967297 is out of range for int32 "
                        "[-2147483648, 2147483647]");
  testing::ExpectStatus(TensorFromProto(Ints("uint8", {}, {300})).status(), StatusCode::kInvalidArgument,
                        "tensor constant uint8[]: int_values[0] = 300 is out of range for uint8 [0, 255]");
  testing::ExpectStatus(TensorFromProto(Ints("uint8", {}, {-1})).status(), StatusCode::kInvalidArgument,
                        "tensor constant uint8[]: int_values[0] = -1 is out of range for uint8 [0, 255]");
  testing::ExpectStatus(TensorFromProto(Ints("bool", {}, {2})).status(), StatusCode::kInvalidArgument,
                        "tensor constant bool[]: int_values[0] = 2 is out of range for bool [0, 1]");
  Status big_float = TensorFromProto(Floats("float32", {}, {1e300})).status();
  EXPECT_EQ(big_float.code(), StatusCode::kInvalidArgument) << big_float;
  EXPECT_NE(big_float.message().find("out of range for float32"), std::string::npos) << big_float;
  EXPECT_EQ(TensorFromProto(Floats("float16", {}, {1e6})).status().code(), StatusCode::kInvalidArgument);
  // Infinities and NaN given as such are values of every float dtype.
  EXPECT_TRUE(TensorFromProto(Floats("float32", {2}, {INFINITY, NAN})).ok());
  EXPECT_TRUE(TensorFromProto(Ints("int64", {2}, {INT64_MIN, INT64_MAX})).ok());
}

// A value count that doesn't match says what each field holds, and a shape
// whose count overflows says so rather than wrapping ("needs 0 values").
TEST(TensorProtoTest, CountMismatchSaysWhatWasGiven) {
  testing::ExpectStatus(TensorFromProto(Floats("int32", {2}, {1.5, 2.5})).status(), StatusCode::kInvalidArgument,
                        "tensor constant int32[2] needs 2 values in int_values but was given 0 int_values, "
                        "2 float_values and 0 string_values");
  Status wrapped = TensorFromProto(Ints("int64", {int64_t{1} << 32, int64_t{1} << 32}, {})).status();
  EXPECT_EQ(wrapped.code(), StatusCode::kInvalidArgument) << wrapped;
  EXPECT_NE(wrapped.message().find("[4294967296, 4294967296] has more elements than fit in int64"), std::string::npos)
      << wrapped;
  EXPECT_EQ(wrapped.message().find("needs 0"), std::string::npos) << wrapped;
}

}  // namespace
}  // namespace sluice
