// Copies on the host, and a GPU in a program without the CUDA backend (this
// test does not link sluice_cuda): the error says how to get one.
#include "sluice/executor/device_copy.h"

#include <gtest/gtest.h>

#include "gpu_without_backend.h"

namespace sluice {
namespace {

using testing::ExpectCudaBackendMissing;
using testing::FakeGpuAllocator;

constexpr Device kGpu{DeviceType::kCuda, 0};

TEST(DeviceCopyTest, HostCopiesStayOnTheHost) {
  const Tensor host = Tensor::FromVector<float>({1, 2, 3});
  auto same = ToDevice(host, Device{});
  ASSERT_TRUE(same.ok());
  EXPECT_EQ(same->raw_data(), host.raw_data());
  auto back = ToHost(host);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->raw_data(), host.raw_data());
  auto copy = DeepCopy(host);
  ASSERT_TRUE(copy.ok());
  EXPECT_NE(copy->raw_data(), host.raw_data());
  EXPECT_TRUE(copy->Equals(host));
  Tensor into = Tensor::Allocate(DType::kFloat32, Shape{3});
  ASSERT_TRUE(CopyInto(host, into).ok());
  EXPECT_TRUE(into.Equals(host));
}

TEST(DeviceCopyTest, AGpuWithoutTheCudaBackendSaysHowToGetOne) {
  ExpectCudaBackendMissing(ToDevice(Tensor::FromVector<float>({1}), kGpu).status(), "ToDevice");
  FakeGpuAllocator fake;
  Tensor on_gpu = Tensor::AllocateUninitialized(DType::kFloat32, Shape{2}, &fake);
  ExpectCudaBackendMissing(ToHost(on_gpu).status(), "ToHost");
  ExpectCudaBackendMissing(DeepCopy(on_gpu).status(), "DeepCopy");
  ExpectCudaBackendMissing(CopyInto(Tensor::FromVector<float>({1, 2}), on_gpu), "CopyInto");
}

TEST(DeviceCopyTest, StringsStayOnTheHostWithOrWithoutABackend) {
  EXPECT_EQ(ToDevice(Tensor::Scalar("text"), kGpu).status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace sluice
