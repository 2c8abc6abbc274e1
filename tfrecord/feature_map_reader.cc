#include "sluice/tfrecord/feature_map_reader.h"

#include <algorithm>
#include <bit>

namespace sluice {
namespace {

constexpr uint32_t kEntryTag = WireTag(1, WireType::kLengthDelimited);
constexpr uint32_t kKeyTag = WireTag(1, WireType::kLengthDelimited);
constexpr uint32_t kValueTag = WireTag(2, WireType::kLengthDelimited);

}  // namespace

FeatureKeyIndex::FeatureKeyIndex(std::vector<std::string> keys) : keys_(std::move(keys)) {
  slots_.resize(std::bit_ceil(std::max<size_t>(8, 2 * keys_.size())));
  mask_ = slots_.size() - 1;
  for (size_t index = 0; index < keys_.size(); ++index) {
    const uint64_t hash = Hash(keys_[index]);
    uint64_t i = hash & mask_;
    while (slots_[i].index >= 0) i = (i + 1) & mask_;
    slots_[i] = Slot{hash, static_cast<int>(index)};
  }
}

Status ReadFeatureMap(std::string_view map, std::string_view what, const FeatureKeyIndex& index,
                      FeatureSlice* slices) {
  WireReader reader(map);
  while (!reader.AtEnd()) {
    uint32_t tag;
    std::string_view entry;
    if (!reader.ReadTag(&tag)) return MalformedError(what, reader);
    if (tag != kEntryTag) {
      if (!reader.SkipField(tag)) return MalformedError(what, reader);
      continue;
    }
    if (!reader.ReadLengthDelimited(&entry)) return MalformedError(what, reader);

    // An entry is a message too: its fields may come in any order, repeat
    // (the last key wins; values merge) or be missing.
    std::string_view key;
    std::string_view value;
    int value_fields = 0;
    WireReader fields(entry);
    while (!fields.AtEnd()) {
      if (!fields.ReadTag(&tag)) return MalformedError(what, fields);
      bool read;
      if (tag == kKeyTag) {
        read = fields.ReadLengthDelimited(&key);
      } else if (tag == kValueTag) {
        read = fields.ReadLengthDelimited(&value);
        ++value_fields;
      } else {
        read = fields.SkipField(tag);
      }
      if (!read) return MalformedError(what, fields);
    }
    const int i = index.Find(key);
    if (i < 0) continue;
    slices[i] = value_fields > 1
                    ? FeatureSlice{.bytes = entry, .whole_entry = true, .present = true}
                    : FeatureSlice{.bytes = value, .present = true};
  }
  return OkStatus();
}

}  // namespace sluice
