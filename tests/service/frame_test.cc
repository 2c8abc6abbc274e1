#include "sluice/service/frame.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

namespace sluice::service {
namespace {

std::span<const std::byte> Bytes(const std::string& s) { return std::as_bytes(std::span(s.data(), s.size())); }

Frame CreditFrame(uint64_t bytes) {
  Frame frame;
  frame.set_call_id(7);
  frame.mutable_credit()->set_bytes(bytes);
  frame.mutable_credit()->set_elements(3);
  return frame;
}

std::string Prefix(uint32_t magic, uint32_t header_bytes, uint64_t payload_bytes) {
  std::string prefix(kFramePrefixBytes, '\0');
  std::memcpy(prefix.data(), &magic, 4);  // the test machine is little-endian, as the wire is
  std::memcpy(prefix.data() + 4, &header_bytes, 4);
  std::memcpy(prefix.data() + 8, &payload_bytes, 8);
  return prefix;
}

// A parsed frame: its message and payload bytes.
struct Parsed {
  Frame frame;
  std::string payload;
};

// Feeds `stream` to a parser in chunks of `chunk` bytes; the frames seen.
Result<std::vector<Parsed>> ParseAll(const std::string& stream, size_t chunk, FrameLimits limits = {}) {
  FrameParser parser(limits);
  std::vector<Parsed> frames;
  for (size_t begin = 0; begin < stream.size(); begin += chunk) {
    std::span<const std::byte> data = Bytes(stream).subspan(begin, std::min(chunk, stream.size() - begin));
    while (true) {
      size_t consumed = 0;
      SLUICE_ASSIGN_OR_RETURN(FrameEvent event, parser.Next(data, &consumed));
      data = data.subspan(consumed);
      if (event.kind == FrameEvent::Kind::kNeedMore) break;
      if (event.kind == FrameEvent::Kind::kHeader) {
        Parsed parsed;
        EXPECT_TRUE(parsed.frame.ParseFromArray(event.header.data(), static_cast<int>(event.header.size())));
        frames.push_back(std::move(parsed));
      } else {
        frames.back().payload.append(reinterpret_cast<const char*>(event.payload.data()), event.payload.size());
      }
    }
  }
  EXPECT_TRUE(parser.at_frame_boundary());
  return frames;
}

TEST(FrameTest, RoundTripsFramesInChunksOfAnySize) {
  std::string stream = *EncodeFrameHead(CreditFrame(100), 0);
  Frame element;
  element.mutable_element()->set_index(5);
  const std::string payload = "0123456789abcdefghij";
  stream += *EncodeFrameHead(element, payload.size()) + payload;
  stream += *EncodeFrameHead(CreditFrame(200), 0);
  for (size_t chunk : {size_t{1}, size_t{3}, size_t{16}, size_t{17}, stream.size()}) {
    SCOPED_TRACE(chunk);
    Result<std::vector<Parsed>> frames = ParseAll(stream, chunk);
    ASSERT_TRUE(frames.ok()) << frames.status();
    ASSERT_EQ(frames->size(), 3u);
    EXPECT_EQ((*frames)[0].frame.credit().bytes(), 100u);
    EXPECT_EQ((*frames)[0].frame.call_id(), 7u);
    EXPECT_EQ((*frames)[1].frame.element().index(), 5u);
    EXPECT_EQ((*frames)[1].payload, payload);
    EXPECT_EQ((*frames)[2].frame.credit().bytes(), 200u);
  }
}

TEST(FrameTest, LayoutIsLittleEndianMagicLengthsHeader) {
  const Frame frame = CreditFrame(1);
  const std::string head = *EncodeFrameHead(frame, 0x0102030405060708ull);
  ASSERT_EQ(head.size(), kFramePrefixBytes + frame.ByteSizeLong());
  EXPECT_EQ(head.substr(0, 4), "SLSV");
  EXPECT_EQ(head.substr(0, 16), Prefix(kFrameMagic, static_cast<uint32_t>(frame.ByteSizeLong()), 0x0102030405060708ull));
  EXPECT_EQ(head.substr(16), frame.SerializeAsString());
}

TEST(FrameTest, WrongMagicNamesExpectedFoundAndOffset) {
  std::string stream = *EncodeFrameHead(CreditFrame(1), 0) + "GET / HTTP/1.1\r\n\r\n";
  Result<std::vector<Parsed>> frames = ParseAll(stream, 5);
  ASSERT_FALSE(frames.ok());
  EXPECT_EQ(frames.status().code(), StatusCode::kDataLoss);
  const std::string& message = frames.status().message();
  EXPECT_NE(message.find("stream offset " + std::to_string(kFramePrefixBytes + CreditFrame(1).ByteSizeLong())),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("expected the magic 0x56534c53"), std::string::npos) << message;
  EXPECT_NE(message.find("(\"GET \")"), std::string::npos) << message;
}

TEST(FrameTest, OversizedHeaderIsRejectedBeforeItArrives) {
  FrameParser parser(FrameLimits{.max_header_bytes = 64, .max_payload_bytes = 0});
  const std::string prefix = Prefix(kFrameMagic, 65, 0);
  size_t consumed = 0;
  Result<FrameEvent> event = parser.Next(Bytes(prefix), &consumed);
  ASSERT_FALSE(event.ok());
  EXPECT_EQ(event.status().code(), StatusCode::kResourceExhausted);
  EXPECT_NE(event.status().message().find("a header of 65 bytes passes the limit of 64"), std::string::npos)
      << event.status();
  // The parser stays failed.
  EXPECT_FALSE(parser.Next(Bytes(prefix), &consumed).ok());
}

TEST(FrameTest, EmptyHeaderIsDataLoss) {
  FrameParser parser;
  size_t consumed = 0;
  Result<FrameEvent> event = parser.Next(Bytes(Prefix(kFrameMagic, 0, 0)), &consumed);
  ASSERT_FALSE(event.ok());
  EXPECT_EQ(event.status().code(), StatusCode::kDataLoss);
}

TEST(FrameTest, PayloadPastTheLimitIsRejected) {
  FrameParser parser(FrameLimits{.max_header_bytes = 1024, .max_payload_bytes = 1000});
  size_t consumed = 0;
  Result<FrameEvent> event = parser.Next(Bytes(Prefix(kFrameMagic, 4, 1001)), &consumed);
  ASSERT_FALSE(event.ok());
  EXPECT_EQ(event.status().code(), StatusCode::kResourceExhausted);
  EXPECT_NE(event.status().message().find("a payload of 1001 bytes passes the limit of 1000"), std::string::npos);
}

// A payload length past 4 GiB is carried in 64 bits and passed through in
// pieces: the parser never holds it.
TEST(FrameTest, PayloadPast4GiBIsStreamedWithoutAllocation) {
  const uint64_t payload_bytes = (uint64_t{5} << 30) + 3;
  FrameParser parser(FrameLimits{.max_header_bytes = 1024, .max_payload_bytes = uint64_t{8} << 30});
  Frame frame;
  frame.mutable_element()->set_index(1);
  const std::string head = *EncodeFrameHead(frame, payload_bytes);
  size_t consumed = 0;
  Result<FrameEvent> event = parser.Next(Bytes(head), &consumed);
  ASSERT_TRUE(event.ok()) << event.status();
  ASSERT_EQ(event->kind, FrameEvent::Kind::kHeader);
  EXPECT_EQ(event->payload_bytes, payload_bytes);
  EXPECT_EQ(parser.bytes_wanted(), payload_bytes);
  // Feed the same 1 MiB chunk over and over: 5 GiB + 3 bytes of views.
  const std::vector<std::byte> chunk(1 << 20);
  uint64_t seen = 0;
  bool done = false;
  while (!done) {
    const uint64_t left = payload_bytes - seen;
    std::span<const std::byte> data(chunk.data(), static_cast<size_t>(std::min<uint64_t>(left, chunk.size())));
    Result<FrameEvent> piece = parser.Next(data, &consumed);
    ASSERT_TRUE(piece.ok());
    ASSERT_EQ(piece->kind, FrameEvent::Kind::kPayload);
    EXPECT_EQ(piece->payload.data(), chunk.data());  // a view, not a copy
    seen += piece->payload.size();
    done = piece->payload_done;
  }
  EXPECT_EQ(seen, payload_bytes);
  EXPECT_EQ(parser.offset(), head.size() + payload_bytes);
  EXPECT_TRUE(parser.at_frame_boundary());
}

TEST(FrameTest, TighterLimitsApplyToTheNextFrame) {
  FrameParser parser;
  parser.set_limits(FrameLimits{.max_header_bytes = 4096, .max_payload_bytes = 0});
  Frame frame;
  frame.mutable_element()->set_index(1);
  size_t consumed = 0;
  Result<FrameEvent> event = parser.Next(Bytes(*EncodeFrameHead(frame, 1)), &consumed);
  ASSERT_FALSE(event.ok());
  EXPECT_EQ(event.status().code(), StatusCode::kResourceExhausted);
}

TEST(FrameTest, EncodingAnEmptyFrameIsRejected) {
  EXPECT_EQ(EncodeFrameHead(Frame(), 0).status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace sluice::service
