#include "sluice/dataset/element_record.h"

#include "contract.h"

namespace sluice {
namespace {

std::string Encode(const ElementSpec& spec, const Element& element) {
  std::string record;
  const Status status = EncodeElementRecord(spec, element, &record);
  EXPECT_TRUE(status.ok()) << status;
  return record;
}

Status DecodeError(const ElementSpec& spec, std::string_view record) {
  Result<Element> element = DecodeElementRecord(spec, record, nullptr, nullptr);
  EXPECT_FALSE(element.ok());
  return element.status();
}

void PutU64(uint64_t value, std::string* out) { out->append(reinterpret_cast<const char*>(&value), 8); }

// Fixed shapes add nothing but the values; strings and open dims round-trip.
TEST(ElementRecordTest, RoundTripsEveryKindOfComponent) {
  const ElementSpec spec{{"x", DType::kFloat32, PartialShape{2}},
                         {"words", DType::kString, PartialShape{-1}},
                         {"values", DType::kInt64, PartialShape{-1}},
                         {"any", DType::kUInt8, PartialShape::UnknownRank()},
                         {"flag", DType::kBool, PartialShape{}}};
  const Element element{Tensor::FromVector<float>({1.5f, -2}), Tensor::FromVector<std::string>({"", "a\0b", "xyz"}),
                        Tensor::FromVector<int64_t>({}), Tensor::FromVector<uint8_t>({1, 2, 3, 4, 5, 6}, Shape{2, 3}),
                        Tensor::Scalar<bool>(true)};
  const std::string record = Encode(spec, element);
  // float32[2]; 1 open dim + 3 lengths + 4 bytes; 1 open dim; rank + 2 dims + 6 bytes; 1 bool.
  EXPECT_EQ(record.size(), 8u + (8 + 24 + 4) + 8 + (1 + 16 + 6) + 1);
  Element decoded = testing::Ok(DecodeElementRecord(spec, record, nullptr, nullptr));
  EXPECT_TRUE(decoded.Equals(element)) << decoded;

  // With an owner, strings view the record.
  auto owner = Buffer::Allocate(record.size());
  std::memcpy(owner->data(), record.data(), record.size());
  const std::string_view view(static_cast<const char*>(owner->data()), record.size());
  decoded = testing::Ok(DecodeElementRecord(spec, view, owner, nullptr));
  EXPECT_TRUE(decoded.Equals(element));
  EXPECT_GT(decoded[1].BackingBytes(), 0u);
}

// The example of docs/snapshot-format.md, byte for byte.
TEST(ElementRecordTest, TheDocumentedExample) {
  const ElementSpec spec{{"x", DType::kFloat32, PartialShape{2}}, {"words", DType::kString, PartialShape{-1}}};
  const std::string record =
      Encode(spec, Element{Tensor::FromVector<float>({1.5f, -2}), Tensor::FromVector<std::string>({"ab", ""})});
  const std::string expected("\x02\0\0\0\0\0\0\0"
                             "\0\0\xc0\x3f\0\0\0\xc0"
                             "\x02\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0"
                             "ab",
                             34);
  EXPECT_EQ(record, expected);
}

TEST(ElementRecordTest, EncodingRefusesAnElementOfAnotherSpec) {
  std::string record;
  const Status status =
      EncodeElementRecord(ElementSpec{{"", DType::kInt64, PartialShape{}}}, Element{Tensor::Scalar<float>(1)}, &record);
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument) << status;
}

TEST(ElementRecordTest, DamagedRecordsAreDataLossNamingTheComponent) {
  const ElementSpec vector{{"", DType::kInt32, PartialShape{-1}}};
  const ElementSpec strings{{"", DType::kString, PartialShape{-1}}};
  const ElementSpec any{{"", DType::kInt32, PartialShape::UnknownRank()}};
  std::string huge_dim;
  PutU64(uint64_t{1} << 60, &huge_dim);
  testing::ExpectStatus(DecodeError(vector, huge_dim), StatusCode::kDataLoss,
                        "component 0: a int32[1152921504606846976] tensor needs 4611686018427387904 bytes, more "
                        "than the whole record (8)");
  testing::ExpectStatus(DecodeError(vector, "abc"), StatusCode::kDataLoss,
                        "component 0: the record ends before dim 0");
  std::string short_values;
  PutU64(3, &short_values);
  short_values += std::string(8, '\0');
  testing::ExpectStatus(DecodeError(vector, short_values), StatusCode::kDataLoss,
                        "component 0: a int32[3] tensor needs 12 bytes, the record has 8 left");
  std::string trailing;
  PutU64(1, &trailing);
  trailing += std::string(5, '\0');
  testing::ExpectStatus(DecodeError(vector, trailing), StatusCode::kDataLoss,
                        "the record has 1 bytes after its last component (of 13)");
  std::string long_string;
  PutU64(1, &long_string);
  PutU64(100, &long_string);
  long_string += "abc";
  testing::ExpectStatus(DecodeError(strings, long_string), StatusCode::kDataLoss,
                        "component 0: string 0 has 100 bytes, past the 3 left in the record");
  testing::ExpectStatus(DecodeError(any, std::string(1, '\x09')), StatusCode::kDataLoss,
                        "component 0: rank 9 passes the limit of 8");
  testing::ExpectStatus(DecodeError(ElementSpec{{"", DType::kBool, PartialShape{}}}, std::string(1, '\x02')),
                        StatusCode::kDataLoss, "component 0: bool value 0 is 2");
}

TEST(ElementRecordTest, TheElementIsChargedToTheRamBudgetBeforeItIsAllocated) {
  const ElementSpec spec{{"", DType::kFloat64, PartialShape{-1}}};
  const std::string record = Encode(spec, Element{Tensor::FromVector<double>(std::vector<double>(100, 1.0))});
  RamBudget small(512);
  const Status refused = DecodeElementRecord(spec, record, nullptr, &small).status();
  EXPECT_EQ(refused.code(), StatusCode::kResourceExhausted) << refused;
  EXPECT_EQ(refused.message(), "an element of 800 bytes: the RAM budget has 512 of its 512 bytes free");
  RamBudget enough(4096);
  EXPECT_TRUE(DecodeElementRecord(spec, record, nullptr, &enough).ok());
  EXPECT_EQ(enough.used(), 0);  // released: the element is its holder's to charge
  EXPECT_EQ(enough.peak(), 800);
}

}  // namespace
}  // namespace sluice
