#include "sluice/core/buffer.h"

#include <unistd.h>

#include <cstring>
#include <memory>
#include <new>

#include "sluice/core/aligned_memory.h"
#include "sluice/core/logging.h"
#include "sluice/core/tstring.h"

namespace sluice {
namespace {

constexpr size_t kAlignment = 64;

class HostAllocator final : public Allocator {
 public:
  void* Allocate(size_t bytes) override { return AlignedAllocate(bytes, kAlignment); }
  void Deallocate(void* data, size_t) override { AlignedFree(data); }
  Device device() const override { return Device{DeviceType::kCpu, 0}; }
  std::string_view name() const override { return "cpu"; }
};

// A buffer's bytes, zero-filled if asked (host memory only); nullptr when
// the allocator is exhausted.
void* AllocateBytes(size_t bytes, Allocator* allocator, Buffer::Fill fill) {
  void* data = allocator->Allocate(bytes);
  if (data != nullptr && fill == Buffer::Fill::kZero && allocator->device().type == DeviceType::kCpu) {
    std::memset(data, 0, bytes);
  }
  return data;
}

// The host bytes of `count` empty TStrings and `extra_bytes` after them;
// nullptr when the host is exhausted or the size overflows.
void* AllocateStringBytes(size_t count, size_t extra_bytes, size_t* bytes) {
  if (__builtin_mul_overflow(count, sizeof(TString), bytes) || __builtin_add_overflow(*bytes, extra_bytes, bytes)) {
    return nullptr;
  }
  void* data = CpuAllocator()->Allocate(*bytes);
  auto* strings = static_cast<TString*>(data);
  if (data != nullptr) std::uninitialized_value_construct_n(strings, count);
  return data;
}

}  // namespace
std::string Device::ToString() const {
  return (type == DeviceType::kCpu ? "cpu:" : "cuda:") + std::to_string(index);
}

Allocator* CpuAllocator() {
  static auto* allocator = new HostAllocator();  // never destroyed: outlives all buffers
  return allocator;
}

int64_t HostMemoryBytes() {
  static const int64_t bytes = static_cast<int64_t>(sysconf(_SC_PHYS_PAGES)) * sysconf(_SC_PAGESIZE);
  return bytes;
}

// One allocation for the header and the reference count, from the host
// object allocator: buffers are often freed on another thread.
std::shared_ptr<Buffer> Buffer::Make(void* data, size_t bytes, size_t string_count, Allocator* allocator) {
  return std::allocate_shared<Buffer>(HostObjectAllocator<Buffer>(), PrivateKey(), data, bytes, string_count,
                                      allocator);
}

Result<std::shared_ptr<Buffer>> Buffer::TryAllocate(size_t bytes, Allocator* allocator, Fill fill) {
  void* data = AllocateBytes(bytes, allocator, fill);
  if (data == nullptr) {
    return ResourceExhaustedError(allocator->name(), " allocator exhausted allocating ", bytes, " bytes");
  }
  return Make(data, bytes, 0, allocator);
}

std::shared_ptr<Buffer> Buffer::Allocate(size_t bytes, Allocator* allocator, Fill fill) {
  void* data = AllocateBytes(bytes, allocator, fill);
  SLUICE_CHECK(data != nullptr) << allocator->name() << " allocator exhausted allocating " << bytes << " bytes";
  return Make(data, bytes, 0, allocator);
}

Result<std::shared_ptr<Buffer>> Buffer::TryAllocateStrings(size_t count, size_t extra_bytes) {
  size_t bytes = 0;
  void* data = AllocateStringBytes(count, extra_bytes, &bytes);
  if (data == nullptr) {
    return ResourceExhaustedError("cpu allocator exhausted allocating ", count, " strings and ", extra_bytes,
                                  " bytes");
  }
  return Make(data, bytes, count, CpuAllocator());
}

std::shared_ptr<Buffer> Buffer::AllocateStrings(size_t count, size_t extra_bytes) {
  size_t bytes = 0;
  void* data = AllocateStringBytes(count, extra_bytes, &bytes);
  SLUICE_CHECK(data != nullptr) << "cpu allocator exhausted allocating " << count << " strings and " << extra_bytes
                                << " bytes";
  return Make(data, bytes, count, CpuAllocator());
}

Buffer::~Buffer() {
  auto* strings = static_cast<TString*>(data_);
  for (size_t i = 0; i < string_count_; ++i) strings[i].~TString();
  allocator_->Deallocate(data_, bytes_);
}

char* Buffer::string_bytes() const { return static_cast<char*>(data_) + string_count_ * sizeof(TString); }

void Buffer::AddBacking(std::shared_ptr<const Buffer> backing) {
  SLUICE_CHECK(backing.get() != this) << "a buffer can't be its own backing";
  if (backing == nullptr || (!backings_.empty() && backings_.back() == backing)) return;
  backings_.push_back(std::move(backing));
}

Buffer::Origin Buffer::OriginOf(const void* p) const {
  const auto* byte = static_cast<const char*>(p);
  const auto* begin = static_cast<const char*>(data_);
  if (origin_.source != nullptr && byte >= begin && byte < begin + bytes_) {
    return {origin_.source, origin_.offset + static_cast<uint64_t>(byte - begin)};
  }
  for (const auto& backing : backings_) {
    Origin origin = backing->OriginOf(p);
    if (origin.source != nullptr) return origin;
  }
  return {};
}

size_t Buffer::RetainedBytes() const {
  size_t bytes = bytes_;
  const auto* strings = static_cast<const TString*>(data_);
  for (size_t i = 0; i < string_count_; ++i) bytes += strings[i].owned_bytes();
  for (const auto& backing : backings_) bytes += backing->RetainedBytes();
  return bytes;
}

}  // namespace sluice
