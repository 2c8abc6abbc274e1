// WireReader: a cursor over protobuf wire-format bytes, for the fast
// Example parser, which walks serialized records without building message
// objects. Length-delimited payloads come back as string_views aliasing the
// input, so the input must outlive them.
//
// The wire format, as far as the parser needs it: a message is a sequence of
// fields, each a varint tag (field_number << 3 | wire_type) and a value:
//   0 varint            1..10 bytes, 7 bits each, little-endian groups
//   1 fixed64           8 bytes
//   2 length-delimited  a varint length, then that many bytes (strings,
//                       sub-messages, packed repeated scalars)
//   3/4 start/end group a (deprecated) group: fields until the matching end
//   5 fixed32           4 bytes
// A field seen with an unexpected wire type is an unknown field, as in
// protobuf. Tag 0, wire types 6 and 7, varints over 10 bytes and values that
// run past the end of their message are malformed.
//
// Methods return false on malformed input and leave the reason in error().
// Thread safety: a reader is a cursor owned by one thread.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "sluice/core/status.h"

namespace sluice {

// Fixed-width values are little-endian on the wire and copied as they are.
static_assert(std::endian::native == std::endian::little,
              "the wire reader assumes a little-endian host");

enum class WireType : uint8_t {
  kVarint = 0,
  kFixed64 = 1,
  kLengthDelimited = 2,
  kStartGroup = 3,
  kEndGroup = 4,
  kFixed32 = 5,
};

constexpr uint32_t WireTag(uint32_t field_number, WireType type) {
  return field_number << 3 | static_cast<uint32_t>(type);
}
constexpr WireType WireTypeOf(uint32_t tag) { return static_cast<WireType>(tag & 7); }

class WireReader {
 public:
  explicit WireReader(std::string_view data) : pos_(data.data()), end_(data.data() + data.size()) {}
  // The reader aliases its input: a temporary string would dangle.
  explicit WireReader(std::string&&) = delete;

  bool AtEnd() const { return pos_ == end_; }
  // Why the last call returned false.
  const char* error() const { return error_; }

  // Reads a field's tag.
  bool ReadTag(uint32_t* tag) {
    // Tags of fields 1..15 take one byte: the common case.
    if (pos_ < end_ && static_cast<uint8_t>(*pos_) < 0x80 && *pos_ != 0) {
      *tag = static_cast<uint8_t>(*pos_++);
      return true;
    }
    return ReadTagSlow(tag);
  }

  bool ReadVarint(uint64_t* value) {
    // One and two bytes inline: small values, and lengths below 16 KiB.
    if (end_ - pos_ >= 2) {
      const auto first = static_cast<uint8_t>(pos_[0]);
      if (first < 0x80) {
        *value = first;
        pos_ += 1;
        return true;
      }
      const auto second = static_cast<uint8_t>(pos_[1]);
      if (second < 0x80) {
        *value = (first & 0x7fu) | uint64_t{second} << 7;
        pos_ += 2;
        return true;
      }
    }
    return ReadVarintSlow(value);
  }

  bool ReadFixed32(uint32_t* value) {
    if (end_ - pos_ < 4) return Fail("truncated fixed32");
    std::memcpy(value, pos_, 4);
    pos_ += 4;
    return true;
  }

  // The payload of a length-delimited field whose tag was just read.
  bool ReadLengthDelimited(std::string_view* payload) {
    uint64_t length;
    if (!ReadVarint(&length)) return false;
    if (length > static_cast<uint64_t>(end_ - pos_)) {
      return Fail("length-delimited field overruns its message");
    }
    *payload = std::string_view(pos_, length);
    pos_ += length;
    return true;
  }

  // Skips the value of the field whose tag was just read, whatever its wire
  // type (a group with everything up to its end tag).
  bool SkipField(uint32_t tag);

 private:
  bool ReadTagSlow(uint32_t* tag);
  bool ReadVarintSlow(uint64_t* value);
  bool SkipGroup(uint32_t start_tag, int depth);
  bool Fail(const char* reason) {
    error_ = reason;
    return false;
  }

  const char* pos_;
  const char* end_;
  const char* error_ = "";
};

// InvalidArgument "malformed <what>: <reader's error>".
inline Status MalformedError(std::string_view what, const WireReader& reader) {
  return InvalidArgumentError("malformed ", what, ": ", reader.error());
}

}  // namespace sluice
