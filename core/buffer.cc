#include "core/buffer.h"

#include <cstdlib>
#include <cstring>
#include <new>

#include "core/logging.h"

namespace sluice {
namespace {

constexpr size_t kAlignment = 64;

class HostAllocator final : public Allocator {
 public:
  void* Allocate(size_t bytes) override {
    const size_t rounded = (bytes + kAlignment - 1) / kAlignment * kAlignment;
    return std::aligned_alloc(kAlignment, rounded == 0 ? kAlignment : rounded);
  }
  void Deallocate(void* data, size_t) override { std::free(data); }
  Device device() const override { return Device{DeviceType::kCpu, 0}; }
  std::string_view name() const override { return "cpu"; }
};

}  // namespace

std::string Device::ToString() const {
  return (type == DeviceType::kCpu ? "cpu:" : "cuda:") + std::to_string(index);
}

Allocator* CpuAllocator() {
  static HostAllocator* allocator = new HostAllocator();  // never destroyed: outlives all buffers
  return allocator;
}

std::shared_ptr<Buffer> Buffer::Allocate(size_t bytes, Allocator* allocator) {
  void* data = allocator->Allocate(bytes);
  SLUICE_CHECK(data != nullptr) << allocator->name() << " allocator exhausted allocating "
                                << bytes << " bytes";
  if (allocator->device().type == DeviceType::kCpu) std::memset(data, 0, bytes);
  return std::shared_ptr<Buffer>(new Buffer(data, bytes, 0, allocator));
}

std::shared_ptr<Buffer> Buffer::AllocateStrings(size_t count) {
  Allocator* allocator = CpuAllocator();
  const size_t bytes = count * sizeof(std::string);
  void* data = allocator->Allocate(bytes);
  SLUICE_CHECK(data != nullptr) << "cpu allocator exhausted allocating " << bytes << " bytes";
  auto* strings = static_cast<std::string*>(data);
  for (size_t i = 0; i < count; ++i) new (strings + i) std::string();
  return std::shared_ptr<Buffer>(new Buffer(data, bytes, count, allocator));
}

Buffer::~Buffer() {
  auto* strings = static_cast<std::string*>(data_);
  for (size_t i = 0; i < string_count_; ++i) strings[i].~basic_string();
  allocator_->Deallocate(data_, bytes_);
}

}  // namespace sluice
