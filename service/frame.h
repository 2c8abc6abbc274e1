// Frames (service/protocol.h has the layout): encoding a frame's head, and
// FrameParser, which takes a byte stream in chunks of any size and yields
// each frame's header bytes and payload, checking the magic and both
// lengths against its limits before anything is allocated. Pure: no I/O,
// so the connection and the fuzz target drive it alike.
// Thread safety: a FrameParser is used by one thread at a time.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "sluice/core/status.h"
#include "sluice/service/protocol.h"
#include "sluice/service/service.pb.h"

namespace sluice::service {

struct FrameLimits {
  // The largest header (serialized Frame) accepted, in bytes.
  uint32_t max_header_bytes = kMaxControlFrameBytes;
  // The largest payload accepted, in bytes.
  uint64_t max_payload_bytes = kDefaultMaxPayloadBytes;
};

// The 16-byte prefix and the serialized `frame`: what precedes a payload of
// `payload_bytes` on the wire. InvalidArgument when the header is empty or
// passes kMaxControlFrameBytes.
Result<std::string> EncodeFrameHead(const Frame& frame, uint64_t payload_bytes);

// What FrameParser::Next found.
struct FrameEvent {
  enum class Kind {
    kNeedMore,  // every byte given was consumed; feed more
    kHeader,    // a frame's header is complete
    kPayload,   // a piece of the current frame's payload
  };
  Kind kind = Kind::kNeedMore;
  // kHeader: the serialized Frame, valid until the next call.
  std::string_view header;
  // kHeader: the frame's payload length; its payload follows as kPayload
  // events (none when 0).
  uint64_t payload_bytes = 0;
  // kPayload: a view of the input.
  std::span<const std::byte> payload;
  // kPayload: this piece ends the frame's payload.
  bool payload_done = false;
  // The stream offset of the frame this event belongs to.
  uint64_t frame_offset = 0;
};

class FrameParser {
 public:
  explicit FrameParser(FrameLimits limits = {}) : limits_(limits) {}

  // Parses from the front of `data`, setting *consumed to the bytes used
  // (all of them for kNeedMore); call again with the rest. A frame's header
  // is held until it is complete; payload bytes are passed through as views
  // of `data`, never copied. DataLoss naming the stream offset, what was
  // expected and what was found for a wrong magic, ResourceExhausted for a
  // length past the limits; after an error the parser stays failed.
  Result<FrameEvent> Next(std::span<const std::byte> data, size_t* consumed);

  // The bytes needed to finish the current prefix, header or payload: a
  // caller doing exact reads reads this many next.
  uint64_t bytes_wanted() const;
  // True between frames: no frame is partly parsed.
  bool at_frame_boundary() const { return state_ == State::kPrefix && prefix_size_ == 0; }
  // Bytes consumed so far.
  uint64_t offset() const { return offset_; }
  // Limits for the frames that follow (e.g. tighter ones during a handshake).
  void set_limits(FrameLimits limits) { limits_ = limits; }
  const FrameLimits& limits() const { return limits_; }

 private:
  enum class State { kPrefix, kHeader, kPayload, kFailed };
  Status CheckPrefix();
  Status Fail(Status status);

  FrameLimits limits_;
  State state_ = State::kPrefix;
  std::array<char, kFramePrefixBytes> prefix_{};
  size_t prefix_size_ = 0;      // prefix bytes read so far
  std::string header_;          // header bytes read so far
  uint32_t header_bytes_ = 0;
  uint64_t payload_left_ = 0;
  uint64_t offset_ = 0;
  uint64_t frame_offset_ = 0;
  Status failure_;
};

}  // namespace sluice::service
