#include "sluice/service/element_codec.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

namespace sluice::service {
namespace {

// The payload pieces gathered into one buffer, as a receiver gets it.
std::shared_ptr<Buffer> Gather(const EncodedElement& encoded) {
  std::shared_ptr<Buffer> buffer = Buffer::Allocate(encoded.payload_bytes, CpuAllocator(), Buffer::Fill::kUninitialized);
  char* out = static_cast<char*>(buffer->data());
  for (const auto& piece : encoded.payload) {
    std::memcpy(out, piece.data(), piece.size());
    out += piece.size();
  }
  EXPECT_EQ(out, static_cast<char*>(buffer->data()) + encoded.payload_bytes);
  return buffer;
}

Result<Element> RoundTrip(const Element& element, Compression compression = COMPRESSION_NONE) {
  SLUICE_ASSIGN_OR_RETURN(EncodedElement encoded, EncodeElement(element, {.compression = compression}));
  ElementHeader header;
  // Through the wire format of the header too.
  EXPECT_TRUE(header.ParseFromString(encoded.header.SerializeAsString()));
  return DecodeElement(header, Gather(encoded));
}

Tensor Strings(const std::vector<std::string>& values, const Shape& shape) {
  return Tensor::FromVector(values, shape);
}

// Every dtype, several shapes (scalar, empty, matrix), strings included.
std::vector<Element> Elements() {
  return {
      Element{Tensor::Scalar<int64_t>(42)},
      Element{Tensor::FromVector<float>({1.5f, -2.0f, 3.25f}), Tensor::FromVector<int32_t>({7, 8, 9, 10}, Shape{2, 2})},
      Element{Tensor::FromVector<bool>({true, false, true}), Tensor::FromVector<uint8_t>({1, 2, 255}),
              Tensor::FromVector<double>({0.5, 1e300}), Tensor::FromVector<Float16>({Float16(1.0f), Float16(-3.0f)}),
              Tensor::FromVector<BFloat16>({BFloat16(2.0f)})},
      Element{Tensor::Allocate(DType::kFloat32, Shape{0, 3}), Tensor::Allocate(DType::kInt64, Shape{0})},
      Element{Tensor::Scalar("a record"), Strings({"", "b", std::string(1000, 'x'), ""}, Shape{2, 2})},
      Element{Strings({}, Shape{0}), Tensor::Scalar(""), Tensor::FromVector<int64_t>({1, 2, 3})},
      Element{},
  };
}

TEST(ElementCodecTest, RoundTripsEveryDtypeAndShape) {
  for (const Element& element : Elements()) {
    for (Compression compression : {COMPRESSION_NONE, COMPRESSION_ZSTD}) {
      SCOPED_TRACE(element.DebugString() + (compression == COMPRESSION_ZSTD ? " zstd" : ""));
      Result<Element> decoded = RoundTrip(element, compression);
      ASSERT_TRUE(decoded.ok()) << decoded.status();
      EXPECT_TRUE(decoded->Equals(element)) << decoded->DebugString();
    }
  }
}

TEST(ElementCodecTest, NumericPayloadPointsIntoTheTensors) {
  const Element element{Tensor::FromVector<float>({1, 2, 3}), Tensor::FromVector<int64_t>({4, 5})};
  EncodedElement encoded = *EncodeElement(element);
  std::vector<const void*> pointers;
  for (const auto& piece : encoded.payload) pointers.push_back(piece.data());
  EXPECT_NE(std::find(pointers.begin(), pointers.end(), element[0].raw_data()), pointers.end());
  EXPECT_NE(std::find(pointers.begin(), pointers.end(), element[1].raw_data()), pointers.end());
  EXPECT_EQ(encoded.header.components(1).offset() % kPayloadAlignment, 0u);
}

TEST(ElementCodecTest, DecodedTensorsViewThePayload) {
  const Element element{Tensor::FromVector<int32_t>({1, 2, 3}), Tensor::Scalar("view me")};
  EncodedElement encoded = *EncodeElement(element);
  std::shared_ptr<Buffer> payload = Gather(encoded);
  Element decoded = *DecodeElement(encoded.header, payload);
  const char* begin = static_cast<const char*>(payload->data());
  EXPECT_EQ(decoded[0].raw_data(), begin);
  const TString& s = decoded[1].scalar<TString>();
  EXPECT_TRUE(s.is_view());
  EXPECT_GE(s.data(), begin);
  EXPECT_LT(s.data(), begin + payload->size());
  payload.reset();
  EXPECT_EQ(std::string_view(decoded[1].scalar<TString>()), "view me");  // the tensor keeps the payload alive
}

TEST(ElementCodecTest, NamesTravelInTheHeader) {
  EncodedElement encoded =
      *EncodeElement(Element{Tensor::Scalar<int64_t>(1)}, {.component_names = {"label"}});
  EXPECT_EQ(encoded.header.components(0).name(), "label");
  EXPECT_EQ(EncodeElement(Element{Tensor::Scalar<int64_t>(1)}, {.component_names = {"a", "b"}}).status().code(),
            StatusCode::kInvalidArgument);
}

TEST(ElementCodecTest, ZstdShrinksRepetitiveData) {
  const Element element{Tensor::Allocate(DType::kFloat32, Shape{1 << 16})};
  EncodedElement encoded = *EncodeElement(element, {.compression = COMPRESSION_ZSTD});
  EXPECT_EQ(encoded.header.compression(), COMPRESSION_ZSTD);
  EXPECT_EQ(encoded.header.uncompressed_length(), uint64_t{4} << 16);
  EXPECT_LT(encoded.payload_bytes, 4096u);
  EXPECT_EQ(DecodedBytes(encoded.header, encoded.payload_bytes), uint64_t{4} << 16);
}

// Hostile headers: each an error naming the problem, never a crash.
class HostileHeaderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    encoded_ = *EncodeElement(Element{Tensor::FromVector<int64_t>({1, 2, 3, 4}), Tensor::Scalar("abc")});
    payload_ = Gather(encoded_);
    header_ = encoded_.header;
  }
  Status Decode() { return DecodeElement(header_, payload_).status(); }

  EncodedElement encoded_;
  std::shared_ptr<Buffer> payload_;
  ElementHeader header_;
};

TEST_F(HostileHeaderTest, RangePastThePayload) {
  header_.mutable_components(0)->set_offset(payload_->size() - 8);
  EXPECT_EQ(Decode().code(), StatusCode::kDataLoss) << Decode();
  header_.mutable_components(0)->set_offset(~uint64_t{0} - 4);  // offset + length overflows
  EXPECT_EQ(Decode().code(), StatusCode::kDataLoss) << Decode();
}

TEST_F(HostileHeaderTest, LengthDisagreesWithShape) {
  header_.mutable_components(0)->set_length(24);
  EXPECT_EQ(Decode().code(), StatusCode::kDataLoss);
  EXPECT_NE(Decode().message().find("int64[4] tensor has 32 bytes, its header says 24"), std::string::npos)
      << Decode();
}

TEST_F(HostileHeaderTest, HugeShapeOverflows) {
  header_.mutable_components(0)->clear_shape();
  for (int i = 0; i < 4; ++i) header_.mutable_components(0)->add_shape(int64_t{1} << 40);
  EXPECT_EQ(Decode().code(), StatusCode::kInvalidArgument) << Decode();
}

TEST_F(HostileHeaderTest, NegativeDimAndTooManyDims) {
  header_.mutable_components(0)->set_shape(0, -4);
  EXPECT_EQ(Decode().code(), StatusCode::kInvalidArgument) << Decode();
  for (int i = 0; i < 9; ++i) header_.mutable_components(0)->add_shape(1);
  EXPECT_EQ(Decode().code(), StatusCode::kInvalidArgument) << Decode();
}

TEST_F(HostileHeaderTest, UnknownDtype) {
  header_.mutable_components(0)->set_dtype("complex128");
  EXPECT_EQ(Decode().code(), StatusCode::kInvalidArgument) << Decode();
}

TEST_F(HostileHeaderTest, MisalignedOffset) {
  header_.mutable_components(0)->set_offset(4);
  EXPECT_EQ(Decode().code(), StatusCode::kInvalidArgument) << Decode();
}

TEST_F(HostileHeaderTest, StringLengthsPastTheSection) {
  // The string component's section: [u64 length = 3]["abc"]; claim 4 bytes.
  const uint64_t offset = header_.components(1).offset();
  static_cast<char*>(payload_->data())[offset] = 4;
  EXPECT_EQ(Decode().code(), StatusCode::kDataLoss) << Decode();
  static_cast<char*>(payload_->data())[offset] = 2;  // fewer bytes than the section holds
  EXPECT_EQ(Decode().code(), StatusCode::kDataLoss) << Decode();
  static_cast<char*>(payload_->data())[offset + 7] = static_cast<char>(0x80);  // a length near 2^63
  EXPECT_EQ(Decode().code(), StatusCode::kDataLoss) << Decode();
}

TEST_F(HostileHeaderTest, StringCountPastTheSection) {
  header_.mutable_components(1)->add_shape(int64_t{1} << 40);
  EXPECT_EQ(Decode().code(), StatusCode::kDataLoss) << Decode();
}

TEST_F(HostileHeaderTest, PayloadSizeDisagreesWithHeader) {
  header_.set_uncompressed_length(payload_->size() + 1);
  EXPECT_EQ(Decode().code(), StatusCode::kDataLoss) << Decode();
}

TEST_F(HostileHeaderTest, TooManyComponents) {
  for (int i = 0; i < 5000; ++i) header_.add_components();
  EXPECT_EQ(Decode().code(), StatusCode::kInvalidArgument) << Decode();
}

TEST(ElementCodecHostileZstdTest, ClaimedSizeAndCorruptBytes) {
  const Element element{Tensor::Allocate(DType::kInt64, Shape{1000})};
  EncodedElement encoded = *EncodeElement(element, {.compression = COMPRESSION_ZSTD});
  std::shared_ptr<Buffer> payload = Gather(encoded);
  ElementHeader header = encoded.header;
  // A claimed size past the limit is refused before allocating it.
  header.set_uncompressed_length(uint64_t{1} << 50);
  EXPECT_EQ(DecodeElement(header, payload).status().code(), StatusCode::kResourceExhausted);
  // A claimed size smaller or larger than the truth.
  header.set_uncompressed_length(100);
  EXPECT_EQ(DecodeElement(header, payload).status().code(), StatusCode::kDataLoss);
  header.set_uncompressed_length(9000);
  EXPECT_EQ(DecodeElement(header, payload).status().code(), StatusCode::kDataLoss);
  // Garbage instead of a zstd frame.
  header = encoded.header;
  std::memset(payload->data(), 0x5a, payload->size());
  EXPECT_EQ(DecodeElement(header, payload).status().code(), StatusCode::kDataLoss);
  // Truncated.
  header.set_compression(COMPRESSION_ZSTD);
  EXPECT_FALSE(DecodeElement(header, Buffer::Allocate(0)).ok());
}

TEST(ElementCodecTest, UnknownCompressionIsRejected) {
  EncodedElement encoded = *EncodeElement(Element{Tensor::Scalar<int32_t>(1)});
  encoded.header.set_compression(static_cast<Compression>(9));
  EXPECT_EQ(DecodeElement(encoded.header, Gather(encoded)).status().code(), StatusCode::kInvalidArgument);
}

// The 64-bit length paths: a header describing a tensor past 4 GiB is
// checked against the payload without allocating either.
TEST(ElementCodecTest, ComponentPast4GiBIsCheckedIn64Bits) {
  ElementHeader header;
  header.set_uncompressed_length(64);
  ComponentHeader* component = header.add_components();
  component->set_dtype("uint8");
  component->add_shape(int64_t{5} << 30);
  component->set_offset(0);
  component->set_length(uint64_t{5} << 30);
  const Status status = DecodeElement(header, Buffer::Allocate(64)).status();
  EXPECT_EQ(status.code(), StatusCode::kDataLoss);
  EXPECT_NE(status.message().find("+5368709120) pass the end of a payload of 64 bytes"), std::string::npos)
      << status;
}

}  // namespace
}  // namespace sluice::service
