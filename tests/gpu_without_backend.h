// For tests of a GPU in a program without the CUDA backend (tests that do
// not link sluice_cuda): a tensor "on a GPU" in host memory, and the error
// every GPU operation then gives.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "sluice/core/buffer.h"
#include "sluice/core/status.h"

namespace sluice::testing {

// Host memory that calls itself cuda:0.
class FakeGpuAllocator final : public Allocator {
 public:
  void* Allocate(size_t bytes) override { return std::aligned_alloc(64, (bytes + 63) / 64 * 64); }
  void Deallocate(void* data, size_t) override { std::free(data); }
  Device device() const override { return Device{DeviceType::kCuda, 0}; }
  std::string_view name() const override { return "fake_gpu"; }
};

// `what` on cuda:0 failed for want of the backend, saying how to get it.
inline void ExpectCudaBackendMissing(const Status& status, std::string_view what) {
  EXPECT_EQ(status.code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(status.message().find(std::string(what) + ": cuda:0 is unavailable: no CUDA backend is registered"), 0u)
      << status.message();
  EXPECT_NE(status.message().find("links sluice_cuda"), std::string::npos) << status.message();
  EXPECT_NE(status.message().find("RegisterCudaBackend()"), std::string::npos) << status.message();
}

}  // namespace sluice::testing
