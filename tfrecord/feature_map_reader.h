// Finding the requested features in a serialized Features or FeatureLists
// message: both are `map<string, V> = 1`, a repeated field of entries
// `{string key = 1; V value = 2;}`. Each entry's key is hashed once and looked
// up among the requested keys; an unrequested entry is skipped without
// looking into its value. As in protobuf, the last entry with a given key
// wins, and an entry without a value holds an empty one.
//
// Thread safety: FeatureKeyIndex is immutable after construction; the
// functions are pure.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "sluice/core/status.h"
#include "sluice/tfrecord/feature_values.h"

namespace sluice {

// The requested keys, as an open-addressing hash table from key to its
// position in the schema.
class FeatureKeyIndex {
 public:
  // REQUIRES: distinct keys.
  explicit FeatureKeyIndex(std::vector<std::string> keys);

  size_t size() const { return keys_.size(); }
  // The position of `key`, or -1 if it is not requested.
  int Find(std::string_view key) const {
    const uint64_t hash = Hash(key);
    for (uint64_t i = hash & mask_;; i = (i + 1) & mask_) {
      const Slot& slot = slots_[i];
      if (slot.index < 0) return -1;
      if (slot.hash == hash && keys_[slot.index] == key) return slot.index;
    }
  }

 private:
  struct Slot {
    uint64_t hash = 0;
    int index = -1;  // -1: empty
  };
  // Keys are short: hashed 8 bytes at a time (multiply and xor-shift);
  // a collision costs a probe and a compare, never a wrong answer.
  static uint64_t Hash(std::string_view key) {
    constexpr uint64_t kMultiplier = 0x9e3779b97f4a7c15;
    uint64_t hash = key.size() * kMultiplier;
    auto mix = [&](uint64_t word) {
      hash = (hash ^ word) * kMultiplier;
      hash ^= hash >> 32;
    };
    size_t i = 0;
    for (; i + 8 <= key.size(); i += 8) {
      uint64_t word;
      std::memcpy(&word, key.data() + i, 8);
      mix(word);
    }
    if (i < key.size()) {
      uint64_t word = 0;
      std::memcpy(&word, key.data() + i, key.size() - i);
      mix(word);
    }
    return hash;
  }

  std::vector<std::string> keys_;
  std::vector<Slot> slots_;  // a power of two, at most half full
  uint64_t mask_ = 0;
};

// Walks the map message `map` and sets slices[i] for each entry whose key is
// at position i of `index` (later entries overwrite earlier ones). Slices of
// keys not in the map are left as they are. InvalidArgument
// "malformed <what>: ..." on malformed bytes outside the values.
// REQUIRES: slices has index.size() elements.
Status ReadFeatureMap(std::string_view map, std::string_view what, const FeatureKeyIndex& index,
                      FeatureSlice* slices);

}  // namespace sluice
