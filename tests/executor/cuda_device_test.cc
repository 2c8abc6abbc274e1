// Device discovery and the per-GPU context: streams, events, the caching
// allocators and host<->device copies. Skipped without a CUDA device.
#include "sluice/executor/cuda_device.h"

#include <gtest/gtest.h>

#include "cuda_test_util.h"
#include "sluice/executor/device_context.h"
#include "sluice/executor/device_copy.h"

namespace sluice {
namespace {

constexpr Device kGpu{DeviceType::kCuda, 0};

TEST(CudaDeviceTest, ListsDevicesOrSaysWhyNone) {
  auto devices = ListCudaDevices();
  if (!devices.ok()) {
    EXPECT_NE(devices.status().message().find("cudaGetDeviceCount"), std::string::npos);
    GTEST_SKIP() << "no CUDA device: " << devices.status().message();
  }
  ASSERT_FALSE(devices->empty());
  for (const CudaDeviceInfo& device : *devices) {
    EXPECT_FALSE(device.name.empty());
    EXPECT_GE(device.compute_major, 7) << "nvcc 13 builds for sm_75 and up";
    EXPECT_GT(device.total_memory, 0u);
    EXPECT_GT(device.multiprocessors, 0);
    EXPECT_EQ(device.ToString().rfind("cuda:" + std::to_string(device.index) + " ", 0), 0u) << device.ToString();
  }
}

TEST(CudaDeviceTest, AContextHasTwoStreamsAndIsMadeOnce) {
  SLUICE_SKIP_WITHOUT_CUDA_DEVICE();
  auto context = DeviceContext::Get(0);
  ASSERT_TRUE(context.ok()) << context.status().ToString();
  EXPECT_NE((*context)->compute_stream(), (*context)->copy_stream());
  EXPECT_EQ(*DeviceContext::Get(0), *context);
  EXPECT_EQ((*context)->allocator().device(), kGpu);
  auto event = (*context)->events().Acquire();
  ASSERT_TRUE(event.ok());
  (*context)->events().Release(*event);
  EXPECT_EQ(*(*context)->events().Acquire(), *event) << "events are reused";
  EXPECT_TRUE((*context)->Synchronize().ok());
}

TEST(CudaDeviceTest, AMissingDeviceIsAnError) {
  SLUICE_SKIP_WITHOUT_CUDA_DEVICE();
  const int count = *CudaDeviceCount();
  auto context = DeviceContext::Get(count);
  EXPECT_EQ(context.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(context.status().message().find("does not exist"), std::string::npos);
}

TEST(CudaDeviceTest, CopiesRoundTripAndStepsStopAllocating) {
  SLUICE_SKIP_WITHOUT_CUDA_DEVICE();
  const Tensor host = Tensor::FromVector<float>({1.5f, -2, 3.25f, 4, -5, 6}, Shape{2, 3});
  auto context = DeviceContext::Get(0);
  ASSERT_TRUE(context.ok());
  const BlockCacheStats before = (*context)->allocator().stats();
  for (int step = 0; step < 10; ++step) {
    auto device = ToDevice(host, kGpu);
    ASSERT_TRUE(device.ok()) << device.status().ToString();
    EXPECT_EQ(device->device(), kGpu);
    auto copy = DeepCopy(*device);
    ASSERT_TRUE(copy.ok());
    auto back = ToHost(*copy);
    ASSERT_TRUE(back.ok());
    EXPECT_TRUE(back->Equals(host));
  }
  const BlockCacheStats after = (*context)->allocator().stats();
  EXPECT_LE(after.misses - before.misses, 2) << "after the first step every block comes from the cache";
  EXPECT_GE(after.hits - before.hits, 18);
}

TEST(CudaDeviceTest, CopyIntoWritesAcrossDevices) {
  SLUICE_SKIP_WITHOUT_CUDA_DEVICE();
  auto device = ToDevice(Tensor::FromVector<double>({1, 2, 3}), kGpu);
  ASSERT_TRUE(device.ok());
  ASSERT_TRUE(CopyInto(Tensor::FromVector<double>({7, 8, 9}), *device).ok());
  Tensor host = Tensor::Allocate(DType::kFloat64, Shape{3});
  ASSERT_TRUE(CopyInto(*device, host).ok());
  EXPECT_TRUE(host.Equals(Tensor::FromVector<double>({7, 8, 9})));
}

TEST(CudaDeviceTest, PinnedHostMemoryIsCachedHostMemory) {
  SLUICE_SKIP_WITHOUT_CUDA_DEVICE();
  PinnedHostAllocator* pinned = PinnedAllocator();
  EXPECT_EQ(pinned->device().type, DeviceType::kCpu);
  void* a = pinned->Allocate(10000);
  ASSERT_NE(a, nullptr) << pinned->last_error();
  static_cast<char*>(a)[9999] = 1;  // host-writable
  pinned->Deallocate(a, 10000);
  EXPECT_EQ(pinned->Allocate(10000), a) << "the freed block is reused";
  pinned->Deallocate(a, 10000);
}

TEST(CudaDeviceTest, StringsStayOnTheHost) {
  SLUICE_SKIP_WITHOUT_CUDA_DEVICE();
  EXPECT_EQ(ToDevice(Tensor::Scalar("text"), kGpu).status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace sluice
