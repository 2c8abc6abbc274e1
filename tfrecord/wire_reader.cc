#include "sluice/tfrecord/wire_reader.h"

namespace sluice {
namespace {

// protobuf's default recursion limit; groups nest no deeper here.
constexpr int kMaxGroupDepth = 100;

}  // namespace

bool WireReader::ReadTagSlow(uint32_t* tag) {
  // As protobuf: at most 5 bytes, bits past 32 dropped.
  uint32_t result = 0;
  for (int i = 0; i < 5; ++i) {
    if (pos_ == end_) return Fail("truncated tag");
    const auto byte = static_cast<uint8_t>(*pos_++);
    result |= static_cast<uint32_t>(byte & 0x7f) << (7 * i);
    if (byte < 0x80) {
      if (result >> 3 == 0) return Fail("field number 0");
      *tag = result;
      return true;
    }
  }
  return Fail("tag longer than 5 bytes");
}

bool WireReader::ReadVarintSlow(uint64_t* value) {
  // At most 10 bytes; bits past 64 dropped, as protobuf does.
  uint64_t result = 0;
  for (int i = 0; i < 10; ++i) {
    if (pos_ == end_) return Fail("truncated varint");
    const auto byte = static_cast<uint8_t>(*pos_++);
    result |= static_cast<uint64_t>(byte & 0x7f) << (7 * i);
    if (byte < 0x80) {
      *value = result;
      return true;
    }
  }
  return Fail("varint longer than 10 bytes");
}

bool WireReader::SkipField(uint32_t tag) {
  switch (WireTypeOf(tag)) {
    case WireType::kVarint: {
      uint64_t ignored;
      return ReadVarint(&ignored);
    }
    case WireType::kFixed64:
      if (end_ - pos_ < 8) return Fail("truncated fixed64");
      pos_ += 8;
      return true;
    case WireType::kLengthDelimited: {
      std::string_view ignored;
      return ReadLengthDelimited(&ignored);
    }
    case WireType::kStartGroup:
      return SkipGroup(tag, 1);
    case WireType::kEndGroup:
      return Fail("end-group tag without a start");
    case WireType::kFixed32:
      if (end_ - pos_ < 4) return Fail("truncated fixed32");
      pos_ += 4;
      return true;
  }
  return Fail("invalid wire type");
}

bool WireReader::SkipGroup(uint32_t start_tag, int depth) {
  if (depth > kMaxGroupDepth) return Fail("groups nested too deeply");
  while (true) {
    if (AtEnd()) return Fail("unterminated group");
    uint32_t tag;
    if (!ReadTag(&tag)) return false;
    if (WireTypeOf(tag) == WireType::kEndGroup) {
      return tag >> 3 == start_tag >> 3 ? true : Fail("mismatched end-group tag");
    }
    const bool skipped =
        WireTypeOf(tag) == WireType::kStartGroup ? SkipGroup(tag, depth + 1) : SkipField(tag);
    if (!skipped) return false;
  }
}

}  // namespace sluice
