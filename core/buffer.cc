#include "core/buffer.h"

#include <cstring>
#include <new>

#include "core/aligned_memory.h"
#include "core/logging.h"

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

}  // namespace
std::string Device::ToString() const {
  return (type == DeviceType::kCpu ? "cpu:" : "cuda:") + std::to_string(index);
}

Allocator* CpuAllocator() {
  static auto* allocator = new HostAllocator();  // never destroyed: outlives all buffers
  return allocator;
}

// One allocation for the header and the reference count, from the host
// object allocator: buffers are often freed on another thread.
std::shared_ptr<Buffer> Buffer::Make(void* data, size_t bytes, size_t string_count, Allocator* allocator) {
  return std::allocate_shared<Buffer>(HostObjectAllocator<Buffer>(), PrivateKey(), data, bytes, string_count,
                                      allocator);
}

std::shared_ptr<Buffer> Buffer::Allocate(size_t bytes, Allocator* allocator, Fill fill) {
  void* data = allocator->Allocate(bytes);
  SLUICE_CHECK(data != nullptr) << allocator->name() << " allocator exhausted allocating "
                                << bytes << " bytes";
  if (fill == Fill::kZero && allocator->device().type == DeviceType::kCpu) std::memset(data, 0, bytes);
  return Make(data, bytes, 0, allocator);
}

std::shared_ptr<Buffer> Buffer::AllocateStrings(size_t count) {
  Allocator* allocator = CpuAllocator();
  const size_t bytes = count * sizeof(std::string);
  void* data = allocator->Allocate(bytes);
  SLUICE_CHECK(data != nullptr) << "cpu allocator exhausted allocating " << bytes << " bytes";
  auto* strings = static_cast<std::string*>(data);
  for (size_t i = 0; i < count; ++i) new (strings + i) std::string();
  return Make(data, bytes, count, allocator);
}

Buffer::~Buffer() {
  auto* strings = static_cast<std::string*>(data_);
  for (size_t i = 0; i < string_count_; ++i) strings[i].~basic_string();
  allocator_->Deallocate(data_, bytes_);
}

}  // namespace sluice
