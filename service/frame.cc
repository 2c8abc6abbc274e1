#include "sluice/service/frame.h"

#include <algorithm>
#include <cstring>

namespace sluice::service {
namespace {

void PutLittleEndian32(uint32_t value, char* out) {
  for (int i = 0; i < 4; ++i) out[i] = static_cast<char>((value >> (8 * i)) & 0xff);
}
void PutLittleEndian64(uint64_t value, char* out) {
  for (int i = 0; i < 8; ++i) out[i] = static_cast<char>((value >> (8 * i)) & 0xff);
}
uint32_t GetLittleEndian32(const char* in) {
  uint32_t value = 0;
  for (int i = 0; i < 4; ++i) value |= static_cast<uint32_t>(static_cast<uint8_t>(in[i])) << (8 * i);
  return value;
}
uint64_t GetLittleEndian64(const char* in) {
  uint64_t value = 0;
  for (int i = 0; i < 8; ++i) value |= static_cast<uint64_t>(static_cast<uint8_t>(in[i])) << (8 * i);
  return value;
}

}  // namespace

Result<std::string> EncodeFrameHead(const Frame& frame, uint64_t payload_bytes) {
  const size_t header_bytes = frame.ByteSizeLong();
  if (header_bytes == 0 || header_bytes > kMaxControlFrameBytes) {
    return InvalidArgumentError("a frame's header must have 1 to ", kMaxControlFrameBytes, " bytes, this one has ",
                                header_bytes);
  }
  std::string head(kFramePrefixBytes + header_bytes, '\0');
  PutLittleEndian32(kFrameMagic, head.data());
  PutLittleEndian32(static_cast<uint32_t>(header_bytes), head.data() + 4);
  PutLittleEndian64(payload_bytes, head.data() + 8);
  if (!frame.SerializeToArray(head.data() + kFramePrefixBytes, static_cast<int>(header_bytes))) {
    return InternalError("could not serialize a frame of ", header_bytes, " bytes");
  }
  return head;
}

uint64_t FrameParser::bytes_wanted() const {
  switch (state_) {
    case State::kPrefix: return kFramePrefixBytes - prefix_size_;
    case State::kHeader: return header_bytes_ - header_.size();
    case State::kPayload: return payload_left_;
    case State::kFailed: return 0;
  }
  return 0;
}

Status FrameParser::Fail(Status status) {
  state_ = State::kFailed;
  failure_ = status;
  return status;
}

Status FrameParser::CheckPrefix() {
  const uint32_t magic = GetLittleEndian32(prefix_.data());
  if (magic != kFrameMagic) {
    char found[5] = {prefix_[0], prefix_[1], prefix_[2], prefix_[3], '\0'};
    for (char& c : found) {
      if (c != '\0' && (c < 0x20 || c > 0x7e)) c = '?';
    }
    // A TLS record of the handshake starts 0x16 0x03: a client using TLS.
    const bool tls = prefix_[0] == 0x16 && prefix_[1] == 0x03;
    return DataLossError("frame at stream offset ", frame_offset_, ": expected the magic 0x", std::hex, kFrameMagic,
                         " (\"SLSV\"), found 0x", magic, std::dec, " (\"", found,
                         tls ? "\"): the peer speaks TLS, and this end does not use TLS"
                             : "\"): the peer does not speak the sluice data-service protocol");
  }
  header_bytes_ = GetLittleEndian32(prefix_.data() + 4);
  const uint64_t payload = GetLittleEndian64(prefix_.data() + 8);
  if (header_bytes_ == 0) {
    return DataLossError("frame at stream offset ", frame_offset_, ": expected a header of 1 to ",
                         limits_.max_header_bytes, " bytes, found 0");
  }
  if (header_bytes_ > limits_.max_header_bytes) {
    return ResourceExhaustedError("frame at stream offset ", frame_offset_, ": a header of ", header_bytes_,
                                  " bytes passes the limit of ", limits_.max_header_bytes, " bytes");
  }
  if (payload > limits_.max_payload_bytes) {
    return ResourceExhaustedError("frame at stream offset ", frame_offset_, ": a payload of ", payload,
                                  " bytes passes the limit of ", limits_.max_payload_bytes, " bytes");
  }
  payload_left_ = payload;
  return OkStatus();
}

Result<FrameEvent> FrameParser::Next(std::span<const std::byte> data, size_t* consumed) {
  *consumed = 0;
  if (state_ == State::kFailed) return failure_;
  const char* bytes = reinterpret_cast<const char*>(data.data());
  FrameEvent event;
  event.frame_offset = frame_offset_;
  while (*consumed < data.size()) {
    const size_t available = data.size() - *consumed;
    switch (state_) {
      case State::kPrefix: {
        if (prefix_size_ == 0) frame_offset_ = offset_;
        const size_t take = std::min<size_t>(available, kFramePrefixBytes - prefix_size_);
        std::memcpy(prefix_.data() + prefix_size_, bytes + *consumed, take);
        prefix_size_ += take;
        *consumed += take;
        offset_ += take;
        if (prefix_size_ < kFramePrefixBytes) break;
        if (Status s = CheckPrefix(); !s.ok()) return Fail(s);
        prefix_size_ = 0;
        header_.clear();
        header_.reserve(header_bytes_);
        state_ = State::kHeader;
        break;
      }
      case State::kHeader: {
        const size_t take = std::min<size_t>(available, header_bytes_ - header_.size());
        header_.append(bytes + *consumed, take);
        *consumed += take;
        offset_ += take;
        if (header_.size() < header_bytes_) break;
        state_ = payload_left_ > 0 ? State::kPayload : State::kPrefix;
        event.kind = FrameEvent::Kind::kHeader;
        event.header = header_;
        event.payload_bytes = payload_left_;
        event.frame_offset = frame_offset_;
        return event;
      }
      case State::kPayload: {
        const size_t take = static_cast<size_t>(std::min<uint64_t>(available, payload_left_));
        event.kind = FrameEvent::Kind::kPayload;
        event.payload = data.subspan(*consumed, take);
        event.frame_offset = frame_offset_;
        *consumed += take;
        offset_ += take;
        payload_left_ -= take;
        event.payload_done = payload_left_ == 0;
        if (event.payload_done) state_ = State::kPrefix;
        return event;
      }
      case State::kFailed: return failure_;
    }
  }
  return event;
}

}  // namespace sluice::service
