// The element codec: an Element as an ElementHeader (service.proto) plus a
// payload of raw bytes, and back.
//
// Payload layout: each component's bytes at an offset that is a multiple of
// kPayloadAlignment, in component order, zero padding between them. A
// numeric component is its tensor's bytes as they are in memory; a string
// component is [u64 little-endian length of each string][the strings' bytes,
// one after another]. With COMPRESSION_ZSTD the payload is one zstd frame of
// that layout, and ElementHeader.uncompressed_length its size.
//
// Encoding copies nothing of a numeric tensor: the payload is a list of
// pieces that point into the tensors (kept alive by the EncodedElement), so
// a writer gathers them straight into the socket. Decoding makes tensors
// that view the one received buffer (strings: views of its bytes, the buffer
// kept alive as their backing). A header is untrusted: every offset, length,
// dtype and shape is checked against the payload (DataLoss or
// InvalidArgument naming the component), never a crash.
// Thread safety: pure functions; an EncodedElement is a plain value.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "sluice/core/buffer.h"
#include "sluice/core/element.h"
#include "sluice/core/status.h"
#include "sluice/service/protocol.h"
#include "sluice/service/service.pb.h"

namespace sluice::service {

struct EncodeOptions {
  Compression compression = COMPRESSION_NONE;
  // zstd's level (1 = fastest) when compressing.
  int zstd_level = 1;
  // Component names written into the header (ElementSpec's); empty: none.
  std::vector<std::string> component_names;
};

// An element ready to send: the header (its index fields are the caller's
// to set) and the payload's pieces.
struct EncodedElement {
  ElementHeader header;
  // Views into `element`'s tensors and into `owned`; together the payload.
  std::vector<std::span<const std::byte>> payload;
  uint64_t payload_bytes = 0;
  // What the pieces point into.
  Element element;
  std::vector<std::shared_ptr<const Buffer>> owned;
};

// InvalidArgument for a component in device memory (copy it to the host
// first) or names that do not match the components.
Result<EncodedElement> EncodeElement(Element element, const EncodeOptions& options = {});

// A header marking the end of a stream: no components, no payload.
ElementHeader EndOfStreamHeader(uint64_t index);

struct DecodeOptions {
  // The largest uncompressed payload accepted (a zstd frame may claim any
  // size): ResourceExhausted above it.
  uint64_t max_uncompressed_bytes = kDefaultMaxPayloadBytes;
  // The most components an element may have.
  size_t max_components = 4096;
};

// The element of `header` whose tensors view `payload` (a null payload reads
// as empty). REQUIRES: !header.end_of_stream().
Result<Element> DecodeElement(const ElementHeader& header, std::shared_ptr<Buffer> payload,
                              const DecodeOptions& options = {});

// The bytes an element of `header` holds once decoded: what a receiver's
// credit is charged (the payload, or its uncompressed length).
uint64_t DecodedBytes(const ElementHeader& header, uint64_t payload_bytes);
// What an element's error is charged against the credit: its message.
inline uint64_t DecodedBytes(const ElementError& error) { return error.message().size(); }

}  // namespace sluice::service
