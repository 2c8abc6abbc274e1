#include "sluice/executor/local_collectives.h"

#include <gtest/gtest.h>

namespace sluice {
namespace {

TEST(LocalCollectivesTest, OneRankKeepsItsOwnValues) {
  LocalCollectives local;
  EXPECT_EQ(local.rank(), 0);
  EXPECT_EQ(local.size(), 1);
  Tensor values = Tensor::FromVector<float>({1, 2, 3});
  ASSERT_TRUE(local.AllReduce(values, ReduceOp::kMean).ok());
  ASSERT_TRUE(local.Broadcast(values).ok());
  Result<std::unique_ptr<PendingAllReduce>> pending = local.StartAllReduce(values, ReduceOp::kSum);
  ASSERT_TRUE(pending.ok()) << pending.status();
  EXPECT_TRUE(*(*pending)->Test());
  EXPECT_TRUE((*pending)->Wait().ok());
  EXPECT_EQ(values.data<float>()[2], 3);
  EXPECT_EQ(*local.AllGather(2.5), std::vector<double>{2.5});
  EXPECT_EQ(*local.AllGather(int64_t{7}), std::vector<int64_t>{7});
  EXPECT_EQ(*local.Gather("position", 8), std::vector<std::string>{"position"});
  EXPECT_TRUE(local.Barrier().ok());
}

TEST(LocalCollectivesTest, RefusesWhatNoTransportReduces) {
  LocalCollectives local;
  Tensor integers = Tensor::FromVector<int64_t>({1, 2});
  const Status refused = local.AllReduce(integers, ReduceOp::kSum);
  EXPECT_EQ(refused.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(refused.message().find("AllReduce reduces float32 or float64 tensors, got int64"), std::string::npos)
      << refused;
  EXPECT_EQ(local.StartAllReduce(integers, ReduceOp::kSum).status().code(), StatusCode::kInvalidArgument);
  // Broadcast takes any numeric tensor, not strings.
  EXPECT_TRUE(local.Broadcast(integers).ok());
  Tensor text = Tensor::Scalar("a");
  EXPECT_EQ(local.Broadcast(text).code(), StatusCode::kInvalidArgument);
  Tensor invalid;
  EXPECT_EQ(local.AllReduce(invalid, ReduceOp::kSum).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(local.Gather("position", 7).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(local.Gather("", kMaxGatherBytes + 1).status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace sluice
