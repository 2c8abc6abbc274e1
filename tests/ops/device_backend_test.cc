#include "sluice/ops/device_backend.h"

#include <gtest/gtest.h>

namespace sluice {
namespace {

// This process never makes a GPU context, so no backend is installed.

TEST(DeviceBackendTest, HostOutputsComeFromTheCpuAllocator) {
  auto allocator = OutputAllocator(Device{});
  ASSERT_TRUE(allocator.ok());
  EXPECT_EQ(*allocator, CpuAllocator());
}

TEST(DeviceBackendTest, AHostConstantForHostValuesIsItself) {
  const Tensor scalar = Tensor::Scalar<float>(0.5f);
  auto constant = ConstantLike(scalar, Tensor::FromVector<float>({1, 2}));
  ASSERT_TRUE(constant.ok());
  EXPECT_EQ(constant->raw_data(), scalar.raw_data());
}

TEST(DeviceBackendTest, AGpuWithoutABackendIsAFailedPrecondition) {
  const Device gpu{DeviceType::kCuda, 0};
  const Status allocator = OutputAllocator(gpu).status();
  EXPECT_EQ(allocator.code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(allocator.message().find("no backend is installed for cuda:0"), std::string::npos) << allocator.message();
  EXPECT_EQ(ComputeStream(0).status().code(), StatusCode::kFailedPrecondition);
}

}  // namespace
}  // namespace sluice
