// Buffer: a block of device or host memory shared by every Tensor that views
// it (ref-counted through std::shared_ptr), and the Allocator it came from.
//
// A buffer of strings holds constructed TStrings (core/tstring.h), which may
// be views of bytes that the buffer keeps alive: its own extra bytes after
// the strings (string_bytes(), for strings copied compactly into it) and its
// backings, other buffers it holds a reference to (a TFRecord read chunk,
// another string tensor's buffer). Backings never form cycles: a buffer only
// takes ones that exist before it is shared.
// Thread safety: Allocators are thread-safe; a Buffer's bytes and backings
// are written only by its creator before it is shared, and read-only
// afterwards.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "sluice/core/status.h"

namespace sluice {

enum class DeviceType { kCpu, kCuda };

struct Device {
  DeviceType type = DeviceType::kCpu;
  int index = 0;
  std::string ToString() const;
  friend bool operator==(const Device&, const Device&) = default;
};

class Allocator {
 public:
  virtual ~Allocator() = default;
  // Returns memory aligned to at least 64 bytes, or nullptr when exhausted.
  virtual void* Allocate(size_t bytes) = 0;
  virtual void Deallocate(void* data, size_t bytes) = 0;
  virtual Device device() const = 0;
  virtual std::string_view name() const = 0;
};

// The process-wide host allocator (64-byte aligned; core/aligned_memory.h
// says which allocator is underneath).
Allocator* CpuAllocator();

// The host's physical memory in bytes: no single host allocation can be
// larger and still be used.
int64_t HostMemoryBytes();

class Buffer {
 public:
  enum class Fill { kZero, kUninitialized };
  // Zero-filled bytes, or uninitialized ones for a caller that overwrites
  // them all: ResourceExhausted (naming the allocator and the size) when
  // the allocator is exhausted.
  static Result<std::shared_ptr<Buffer>> TryAllocate(size_t bytes, Allocator* allocator = CpuAllocator(),
                                                     Fill fill = Fill::kZero);
  // `count` empty TStrings, destroyed with the buffer, followed by
  // `extra_bytes` uninitialized bytes (string_bytes()) that views among the
  // strings may point into; ResourceExhausted when the host is exhausted or
  // the size overflows.
  static Result<std::shared_ptr<Buffer>> TryAllocateStrings(size_t count, size_t extra_bytes = 0);
  // TryAllocate and TryAllocateStrings for sizes that are already bounded
  // (internal ones, or checked by the caller): abort when exhausted.
  static std::shared_ptr<Buffer> Allocate(size_t bytes, Allocator* allocator = CpuAllocator(),
                                          Fill fill = Fill::kZero);
  static std::shared_ptr<Buffer> AllocateStrings(size_t count, size_t extra_bytes = 0);
  ~Buffer();

  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;

  void* data() const { return data_; }
  size_t size() const { return bytes_; }
  Device device() const { return allocator_->device(); }

  // A string buffer's extra bytes (AllocateStrings).
  char* string_bytes() const;
  // Keeps `backing` alive as long as this buffer, for views among its strings
  // that point into it. Adding the backing added last again is a no-op.
  // REQUIRES: the creator, before the buffer is shared; backing != this.
  void AddBacking(std::shared_ptr<const Buffer> backing);
  const std::vector<std::shared_ptr<const Buffer>>& backings() const { return backings_; }
  // The host memory this buffer keeps allocated: its own bytes, its owned
  // strings' heap blocks, and its backings' retained bytes (a backing reached
  // twice counts twice). O(strings + backings), recursively.
  size_t RetainedBytes() const;

  // Where a buffer's bytes were read from, for messages about what is found
  // in them: data()[0] is at byte `offset` of `source` (a file name).
  // TFRecord read chunks set it (tfrecord/record_reader.h); a null source
  // means unknown.
  struct Origin {
    std::shared_ptr<const std::string> source;
    uint64_t offset = 0;
  };
  // REQUIRES: the creator, while nothing views the bytes.
  void set_origin(Origin origin) { origin_ = std::move(origin); }
  // The origin of the byte at `p`, offset to it: from this buffer or the
  // first backing (searched recursively) whose bytes hold `p` and that has
  // one; a null source when none does. O(backings), for error messages.
  Origin OriginOf(const void* p) const;

 private:
  struct PrivateKey {};  // only Buffer's factories can construct one

 public:
  Buffer(PrivateKey, void* data, size_t bytes, size_t string_count, Allocator* allocator)
      : data_(data), bytes_(bytes), string_count_(string_count), allocator_(allocator) {}

 private:
  static std::shared_ptr<Buffer> Make(void* data, size_t bytes, size_t string_count, Allocator* allocator);

  void* data_;
  size_t bytes_;
  size_t string_count_;  // > 0 for a string buffer
  Allocator* allocator_;
  std::vector<std::shared_ptr<const Buffer>> backings_;
  Origin origin_;
};

}  // namespace sluice
