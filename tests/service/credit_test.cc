#include "sluice/service/credit.h"

#include <gtest/gtest.h>

#include <limits>

namespace sluice::service {
namespace {

TEST(CreditTest, SenderNeedsAnElementAndAByte) {
  SenderCredit credit;
  EXPECT_FALSE(credit.CanSend());
  credit.Grant(100, 0);
  EXPECT_FALSE(credit.CanSend());
  credit.Grant(0, 2);
  ASSERT_TRUE(credit.CanSend());
  credit.Spend(60);
  EXPECT_EQ(credit.bytes(), 40u);
  EXPECT_EQ(credit.elements(), 1u);
  // An element larger than what is left still goes, and takes the rest.
  ASSERT_TRUE(credit.CanSend());
  credit.Spend(1000);
  EXPECT_EQ(credit.bytes(), 0u);
  EXPECT_FALSE(credit.CanSend());
}

TEST(CreditTest, GrantsSaturate) {
  SenderCredit credit;
  credit.Grant(std::numeric_limits<uint64_t>::max(), 1);
  credit.Grant(10, std::numeric_limits<uint64_t>::max());
  EXPECT_EQ(credit.bytes(), std::numeric_limits<uint64_t>::max());
  EXPECT_EQ(credit.elements(), std::numeric_limits<uint64_t>::max());
}

// Both ends count the same stream alike: the receiver accepts exactly what
// the sender may send, and not one element more.
TEST(CreditTest, ReceiverMirrorsTheSenderAndCatchesOverruns) {
  SenderCredit sender;
  ReceiverCredit receiver;
  sender.Grant(1000, 3);
  receiver.Grant(1000, 3);
  for (uint64_t bytes : {400u, 700u}) {
    ASSERT_TRUE(sender.CanSend());
    sender.Spend(bytes);
    ASSERT_TRUE(receiver.Receive(bytes).ok());
  }
  EXPECT_FALSE(sender.CanSend());
  const Status overrun = receiver.Receive(1);
  EXPECT_EQ(overrun.code(), StatusCode::kDataLoss);
  EXPECT_NE(overrun.message().find("without credit"), std::string::npos) << overrun;
}

// Returns go back once half the window waits, and never fill the sender
// past the window.
TEST(CreditTest, ReturnsComeInHalfWindowBatchesCappedByTheWindow) {
  CreditReturns returns;
  returns.Widen(1000, 8);
  ReceiverCredit outstanding;
  outstanding.Grant(1000, 8);
  for (int i = 0; i < 4; ++i) ASSERT_TRUE(outstanding.Receive(10).ok());
  EXPECT_FALSE(returns.Add(10, 1));
  EXPECT_FALSE(returns.Add(10, 1));
  EXPECT_FALSE(returns.Add(10, 1));
  EXPECT_TRUE(returns.Add(10, 1));   // 4 of 8 elements: due
  EXPECT_FALSE(returns.Add(0, 0));   // once per batch
  CreditReturns::Batch batch = returns.Take(outstanding);
  EXPECT_EQ(batch.bytes, 40u);
  EXPECT_EQ(batch.elements, 4u);
  outstanding.Grant(batch.bytes, batch.elements);

  // An element of 2000 bytes took the 1000 left; returning all 2000 would
  // give the sender twice the window.
  ASSERT_TRUE(outstanding.Receive(2000).ok());
  EXPECT_TRUE(returns.Add(2000, 1));
  batch = returns.Take(outstanding);
  EXPECT_EQ(batch.bytes, 1000u);
  EXPECT_EQ(batch.elements, 1u);
}

TEST(CreditTest, AWindowOfOneElementReturnsEachElement) {
  CreditReturns returns;
  returns.Widen(1 << 20, 1);
  EXPECT_TRUE(returns.Add(5, 1));
  ReceiverCredit outstanding;
  EXPECT_EQ(returns.Take(outstanding).elements, 1u);
  EXPECT_TRUE(returns.Add(5, 1));
}

}  // namespace
}  // namespace sluice::service
