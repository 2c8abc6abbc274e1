// Buffer: a block of device or host memory shared by every Tensor that views
// it (ref-counted through std::shared_ptr), and the Allocator it came from.
// A Buffer of strings owns constructed std::string objects.
// Thread safety: Allocators are thread-safe; a Buffer's bytes are written only
// by its creator before it is shared, and read-only afterwards.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

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

class Buffer {
 public:
  enum class Fill { kZero, kUninitialized };
  // Zero-filled bytes, or uninitialized ones for a caller that overwrites
  // them all. Aborts if the allocator is exhausted.
  static std::shared_ptr<Buffer> Allocate(size_t bytes, Allocator* allocator = CpuAllocator(),
                                          Fill fill = Fill::kZero);
  // `count` empty std::strings, destroyed with the buffer.
  static std::shared_ptr<Buffer> AllocateStrings(size_t count);
  ~Buffer();

  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;

  void* data() const { return data_; }
  size_t size() const { return bytes_; }
  Device device() const { return allocator_->device(); }

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
};

}  // namespace sluice
