// The verified-read limit of a TFRecord file: read() in 1 MiB blocks, the
// frames split in place, the hardware CRC32C of every length and payload
// checked. No reader that verifies what it reads can go faster; the read
// benchmarks (tfrecord_read_bench, snapshot_read_bench) set their readers
// beside it in the same run.
#pragma once

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "sluice/tfrecord/crc32c.h"
#include "sluice/tfrecord/record_format.h"

namespace sluice::bench {

[[noreturn]] inline void Die(const std::string& what) {
  std::fprintf(stderr, "error: %s\n", what.c_str());
  std::exit(1);
}

// The file's bytes, every frame verified.
inline size_t VerifiedReadLimit(const std::string& path) {
  constexpr size_t kBlock = 1 << 20;
  const int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0) Die("cannot open " + path);
  std::vector<uint8_t> buffer(2 * kBlock);
  size_t begin = 0, end = 0, total = 0;
  while (true) {
    if (buffer.size() - end < kBlock) {
      std::memmove(buffer.data(), buffer.data() + begin, end - begin);
      end -= begin;
      begin = 0;
      if (buffer.size() - end < kBlock) buffer.resize(end + kBlock);
    }
    const ssize_t n = ::read(fd, buffer.data() + end, kBlock);
    if (n <= 0) break;
    end += n;
    total += n;
    while (end - begin >= record_format::kHeaderSize) {
      const uint8_t* p = buffer.data() + begin;
      const uint64_t length = record_format::LoadU64(p);
      if (end - begin < length + 16) break;
      if (!record_format::LengthCrcMatches(p) ||
          crc32c::Unmask(record_format::LoadU32(p + 12 + length)) != crc32c::Value(p + 12, length)) {
        Die("CRC mismatch in the limit loop");
      }
      begin += length + 16;
    }
  }
  ::close(fd);
  return total;
}

}  // namespace sluice::bench
