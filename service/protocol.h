// The data service's wire protocol: its version, its limits and the layout
// of a frame. Every connection (service/connection.h) speaks it.
//
// A connection is a stream of frames, each
//
//   offset  size         field
//   0       u32          magic, kFrameMagic ("SLSV" as bytes)
//   4       u32          header_len: bytes of the header, 1..max header bytes
//   8       u64          payload_len: bytes of the raw payload, 0..max payload
//   16      header_len   a serialized sluice.service.Frame (service.proto)
//   16+h    payload_len  raw bytes: an element's tensors (ElementHeader)
//
// with every integer little-endian. Only a frame whose Frame holds an
// ElementHeader has a payload. The receiver checks the magic and both
// lengths against its limits before it allocates anything, so a hostile
// length costs nothing; payload_len is 64-bit, so an element may pass 2 GiB
// (no protobuf ever holds tensor bytes).
//
// Versions: major.minor (1.1 restores shared jobs from their consumers'
// saved states; 1.2 counts an element's error against the credit, as an
// element, where both peers speak 1.2). Peers with different majors refuse each other at
// the first frame, naming both versions; peers with the same major and
// different minors work together (a newer minor only adds what an older peer
// may ignore).
// Thread safety: constants only.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>

namespace sluice::service {

inline constexpr uint32_t kServiceProtocolMajor = 1;
inline constexpr uint32_t kServiceProtocolMinor = 2;

// "SLSV" in stream order (the u32 read little-endian).
inline constexpr uint32_t kFrameMagic = 0x56534C53;
inline constexpr size_t kFramePrefixBytes = 16;

// The largest control message (a Frame's serialized header), 1 MiB: specs,
// split lists and dataset registrations fit with room to spare.
inline constexpr uint32_t kMaxControlFrameBytes = 1u << 20;
// The largest handshake frame a server reads from a peer it has not
// authenticated yet.
inline constexpr uint32_t kMaxHandshakeFrameBytes = 4096;
// The largest element payload a connection accepts by default (8 GiB);
// ConnectionOptions lowers or raises it. The credit a receiver grants bounds
// what actually arrives (service/credit.h).
inline constexpr uint64_t kDefaultMaxPayloadBytes = uint64_t{8} << 30;

// The credit a receiver grants an element stream by default: 64 MiB and
// 4096 elements in flight (the count bounds what many small elements cost
// beyond their bytes; a window of a few dozen would hold a stream of small
// elements to one credit round trip per few dozen).
inline constexpr uint64_t kDefaultCreditBytes = uint64_t{64} << 20;
inline constexpr uint64_t kDefaultCreditElements = 4096;
// The elements in flight a consumer of a shared job grants by default
// (service/service_dataset.h).
inline constexpr uint64_t kSharedJobCreditElements = 64;

// The most consumers a coordinated job may have (num_consumers): every
// worker of the job keeps a queue for each, so a larger count from a client
// (or in a task) is refused before anything is sized by it.
inline constexpr int64_t kMaxConsumersPerJob = 65536;

// Bytes of the nonce in a Challenge.
inline constexpr size_t kNonceBytes = 32;

// How long a handshake may take by default, and how long a write may wait
// for a peer that does not read.
inline constexpr std::chrono::milliseconds kDefaultHandshakeTimeout{5000};
inline constexpr std::chrono::milliseconds kDefaultWriteTimeout{30000};

// Components' offsets in an element payload are multiples of this, so that
// every tensor viewing the received buffer is aligned for its dtype.
inline constexpr uint64_t kPayloadAlignment = 64;

}  // namespace sluice::service
