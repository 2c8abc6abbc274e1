// Random tf.train.Feature contents and random, valid wire encodings of them
// for the differential tests: every encoding protobuf accepts and its own
// serializer never writes (unpacked and chunked lists, lists replaced by a
// later list of another kind, entries with the value first or split into
// several value fields, unknown fields and groups at every level, maps split
// across repeated fields). What the bytes mean is left to protobuf's parser,
// the reference the fast parsers are compared with.
#pragma once

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "example_test_util.h"
#include "sluice/tfrecord/feature_values.h"

namespace sluice::testing {

struct FeatureContent {
  FeatureKind kind = FeatureKind::kNone;
  int64_t count = 0;  // values to draw
};

class RandomFeatures {
 public:
  explicit RandomFeatures(uint64_t seed) : rng_(seed) {}

  // Uniform in [low, high].
  int64_t Uniform(int64_t low, int64_t high) {
    return std::uniform_int_distribution<int64_t>(low, high)(rng_);
  }
  bool Chance(double p) { return std::bernoulli_distribution(p)(rng_); }
  template <typename T>
  const T& Pick(const std::vector<T>& items) {
    return items[static_cast<size_t>(Uniform(0, static_cast<int64_t>(items.size()) - 1))];
  }

  FeatureKind RandomKind() { return static_cast<FeatureKind>(Uniform(0, 3)); }

  // The fields of a Feature payload holding `content` (random values).
  std::vector<std::string> FeatureFields(const FeatureContent& content) {
    std::vector<std::string> fields;
    if (Chance(0.1)) fields.push_back(UnknownField());
    if (content.kind != FeatureKind::kNone && Chance(0.1)) {
      // A list of another kind, which the real one replaces (oneof).
      const auto decoy = static_cast<FeatureKind>(1 + (static_cast<int>(content.kind) % 3));
      fields.push_back(ListField(decoy, Uniform(0, 2)));
    }
    if (content.kind != FeatureKind::kNone) {
      // The values, in one list field or (merged by protobuf) two.
      const int64_t first = Chance(0.15) ? Uniform(0, content.count) : content.count;
      fields.push_back(ListField(content.kind, first));
      if (first < content.count || Chance(0.05)) {
        fields.push_back(ListField(content.kind, content.count - first));
      }
    }
    if (Chance(0.1)) fields.push_back(UnknownField());
    return fields;
  }

  // A map entry {key = 1, value = 2} whose value message has `value_fields`.
  std::string MapEntry(const std::string& key, const std::vector<std::string>& value_fields) {
    std::vector<std::string> values;  // value messages; protobuf merges repeats
    if (value_fields.empty() && Chance(0.3)) {
      // No value field at all: an empty value.
    } else if (value_fields.size() >= 2 && Chance(0.2)) {
      const size_t split =
          static_cast<size_t>(Uniform(1, static_cast<int64_t>(value_fields.size()) - 1));
      values.push_back(Join(value_fields, 0, split));
      values.push_back(Join(value_fields, split, value_fields.size()));
    } else {
      values.push_back(Join(value_fields, 0, value_fields.size()));
    }
    std::string entry;
    const bool value_first = Chance(0.15);
    if (!value_first) entry += LengthDelimitedField(1, key);
    for (const std::string& value : values) {
      if (Chance(0.05)) entry += UnknownField();
      entry += LengthDelimitedField(2, value);
    }
    if (value_first) entry += LengthDelimitedField(1, key);
    return LengthDelimitedField(1, entry);
  }

  // A message field holding a map made of `entries` (each from MapEntry),
  // with unknown fields mixed in; split across repeats of the field at
  // `field_number` (protobuf merges them) or, for a top-level field,
  // across concatenated records.
  std::string SplitMap(uint32_t field_number, const std::vector<std::string>& entries) {
    std::string out;
    std::string map;
    for (const std::string& entry : entries) {
      if (Chance(0.05)) map += UnknownField();
      map += entry;
      if (Chance(0.1)) {
        out += LengthDelimitedField(field_number, map);
        map.clear();
      }
    }
    if (Chance(0.05)) out += UnknownField();
    return out + LengthDelimitedField(field_number, map);
  }

  // A random field numbered 5..20 that no tf.train message defines.
  std::string UnknownField() {
    const auto field = static_cast<uint32_t>(Uniform(5, 20));
    switch (Uniform(0, 4)) {
      case 0:
        return VarintField(field, static_cast<uint64_t>(Uniform(0, INT64_MAX)));
      case 1:
        return Fixed32Field(field, 1.0f);
      case 2:
        return Tag(field, WireType::kFixed64) + std::string(8, '\x7f');
      case 3:
        return LengthDelimitedField(field, RandomBytes());
      default:
        return Tag(field, WireType::kStartGroup) + VarintField(1, 3) +
               Tag(field, WireType::kEndGroup);
    }
  }

  std::string RandomBytes() {
    std::string bytes(static_cast<size_t>(Uniform(0, 6)), '\0');
    for (char& c : bytes) c = static_cast<char>(Uniform(0, 255));
    return bytes;
  }

 private:
  static std::string Join(const std::vector<std::string>& parts, size_t begin, size_t end) {
    std::string out;
    for (size_t i = begin; i < end; ++i) out += parts[i];
    return out;
  }

  // A list field of `kind` (Feature field 1, 2 or 3) with `count` random
  // values, packed or not, in one or more chunks.
  std::string ListField(FeatureKind kind, int64_t count) {
    std::string list;
    if (count == 0 && Chance(0.3)) list += ListChunk(kind, 0);  // an empty packed run
    for (int64_t written = 0; written < count;) {
      const int64_t chunk = Uniform(1, count - written);
      if (Chance(0.1)) list += UnknownField();
      list += ListChunk(kind, chunk);
      written += chunk;
    }
    return LengthDelimitedField(static_cast<uint32_t>(kind), list);
  }

  std::string ListChunk(FeatureKind kind, int64_t count) {
    std::string chunk;
    const bool packed = kind != FeatureKind::kBytes && Chance(0.7);
    for (int64_t i = 0; i < count; ++i) {
      if (kind == FeatureKind::kBytes) {
        chunk += LengthDelimitedField(1, RandomBytes());
      } else if (kind == FeatureKind::kFloat) {
        const uint32_t bits = static_cast<uint32_t>(Uniform(0, UINT32_MAX));
        float value;
        std::memcpy(&value, &bits, 4);
        chunk +=
            packed ? std::string(reinterpret_cast<const char*>(&bits), 4) : Fixed32Field(1, value);
      } else {
        const uint64_t value = Chance(0.3) ? static_cast<uint64_t>(Uniform(INT64_MIN, -1))
                                           : static_cast<uint64_t>(Uniform(0, 300));
        chunk += packed ? Varint(value) : VarintField(1, value);
      }
    }
    return packed ? LengthDelimitedField(1, chunk) : chunk;
  }

  std::mt19937_64 rng_;
};

}  // namespace sluice::testing
