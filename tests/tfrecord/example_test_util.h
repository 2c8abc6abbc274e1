// Helpers for the Example parser tests: hand encoding of protobuf wire
// format (for encodings protobuf itself never writes: unpacked lists,
// repeated fields, unknown fields, damage), tf.train.Feature builders, and
// Ok() to unwrap a Result in a test.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sluice/core/status.h"
#include "sluice/tfrecord/example.pb.h"
#include "sluice/tfrecord/wire_reader.h"

namespace sluice::testing {

// The value of an OK result; fails the test (and returns T{}) otherwise.
template <typename T>
T Ok(Result<T> result) {
  EXPECT_TRUE(result.ok()) << result.status();
  return result.ok() ? std::move(result).value() : T{};
}

inline std::string Varint(uint64_t value) {
  std::string out;
  while (value >= 0x80) {
    out.push_back(static_cast<char>(value | 0x80));
    value >>= 7;
  }
  out.push_back(static_cast<char>(value));
  return out;
}

inline std::string Tag(uint32_t field, WireType type) { return Varint(WireTag(field, type)); }

inline std::string LengthDelimitedField(uint32_t field, std::string_view payload) {
  return Tag(field, WireType::kLengthDelimited) + Varint(payload.size()) + std::string(payload);
}
inline std::string VarintField(uint32_t field, uint64_t value) {
  return Tag(field, WireType::kVarint) + Varint(value);
}
inline std::string Fixed32Field(uint32_t field, float value) {
  std::string bytes(4, '\0');
  std::memcpy(bytes.data(), &value, 4);
  return Tag(field, WireType::kFixed32) + bytes;
}

// Feature payloads, as protobuf writes them (packed numeric lists).
inline tensorflow::Feature Int64Feature(const std::vector<int64_t>& values) {
  tensorflow::Feature feature;
  for (int64_t v : values) feature.mutable_int64_list()->add_value(v);
  if (values.empty()) feature.mutable_int64_list();
  return feature;
}
inline tensorflow::Feature FloatFeature(const std::vector<float>& values) {
  tensorflow::Feature feature;
  for (float v : values) feature.mutable_float_list()->add_value(v);
  if (values.empty()) feature.mutable_float_list();
  return feature;
}
inline tensorflow::Feature BytesFeature(const std::vector<std::string>& values) {
  tensorflow::Feature feature;
  for (const std::string& v : values) feature.mutable_bytes_list()->add_value(v);
  if (values.empty()) feature.mutable_bytes_list();
  return feature;
}

// One Features map entry, hand-encoded: {key = 1, value = 2}.
inline std::string MapEntry(std::string_view key, std::string_view value_payload) {
  return LengthDelimitedField(
      1, LengthDelimitedField(1, key) + LengthDelimitedField(2, value_payload));
}

// A serialized Example with these entries, in this order (duplicates kept).
inline std::string SerializeExample(
    const std::vector<std::pair<std::string, tensorflow::Feature>>& entries) {
  std::string features;
  for (const auto& [key, feature] : entries) features += MapEntry(key, feature.SerializeAsString());
  return LengthDelimitedField(1, features);
}

}  // namespace sluice::testing
