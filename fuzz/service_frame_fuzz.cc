// Fuzzes what a data-service peer reads from the network: the input is a
// byte stream fed to FrameParser in chunks (the first byte picks the chunk
// size), under small limits; every complete header is parsed as a Frame, and
// an element's header with its payload is decoded (service/element_codec.h),
// compressed payloads included. Nothing may crash, hang, allocate beyond the
// limits or trip a sanitizer; errors are fine.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include <google/protobuf/stubs/logging.h>

#include "sluice/service/element_codec.h"
#include "sluice/service/frame.h"
#include "touch.h"

namespace {

using namespace sluice;
using namespace sluice::service;

constexpr uint64_t kMaxPayload = 1 << 20;

void Decode(const Frame& frame, const std::string& payload) {
  if (frame.kind_case() != Frame::kElement || frame.element().end_of_stream()) return;
  std::shared_ptr<Buffer> buffer = Buffer::Allocate(payload.size(), CpuAllocator(), Buffer::Fill::kUninitialized);
  if (!payload.empty()) std::memcpy(buffer->data(), payload.data(), payload.size());
  Result<Element> element =
      DecodeElement(frame.element(), buffer, {.max_uncompressed_bytes = kMaxPayload, .max_components = 64});
  if (element.ok()) {
    for (const Tensor& tensor : element->components) fuzz::TouchTensor(tensor);
  }
}

}  // namespace

// Protobuf logs every string field that is not UTF-8; a fuzzer makes
// millions of them.
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  google::protobuf::SetLogHandler(nullptr);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const size_t chunk = 1 + data[0] % 64;
  std::span<const std::byte> stream(reinterpret_cast<const std::byte*>(data + 1), size - 1);
  FrameParser parser(FrameLimits{.max_header_bytes = 1 << 16, .max_payload_bytes = kMaxPayload});
  Frame frame;
  bool have_frame = false;
  std::string payload;
  for (size_t begin = 0; begin < stream.size(); begin += chunk) {
    std::span<const std::byte> piece = stream.subspan(begin, std::min(chunk, stream.size() - begin));
    while (!piece.empty()) {
      size_t consumed = 0;
      Result<FrameEvent> event = parser.Next(piece, &consumed);
      if (!event.ok()) return 0;
      piece = piece.subspan(consumed);
      if (event->kind == FrameEvent::Kind::kHeader) {
        have_frame = frame.ParseFromArray(event->header.data(), static_cast<int>(event->header.size()));
        payload.clear();
        if (have_frame && event->payload_bytes == 0) Decode(frame, payload);
      } else if (event->kind == FrameEvent::Kind::kPayload) {
        payload.append(reinterpret_cast<const char*>(event->payload.data()), event->payload.size());
        if (event->payload_done && have_frame) Decode(frame, payload);
      }
    }
  }
  return 0;
}
