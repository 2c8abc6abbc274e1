#include "dataset/prefetch_autotuner.h"

#include <gtest/gtest.h>

namespace sluice {
namespace {

TEST(PrefetchAutotunerTest, StartsAtOneElement) {
  PrefetchAutotuner tuner(/*max_elements=*/64, /*max_bytes=*/1 << 20);
  EXPECT_EQ(tuner.buffer_limit(), 1);
}

TEST(PrefetchAutotunerTest, StarvingWithoutAThrottledProducerDoesNotGrow) {
  PrefetchAutotuner tuner(64, 1 << 20);
  for (int i = 0; i < 10; ++i) tuner.RecordConsumerStarved(100);
  EXPECT_EQ(tuner.buffer_limit(), 1);
}

TEST(PrefetchAutotunerTest, DoublesOncePerThrottleThenStarve) {
  PrefetchAutotuner tuner(64, 1 << 20);
  tuner.RecordProducerThrottled();
  tuner.RecordConsumerStarved(100);
  EXPECT_EQ(tuner.buffer_limit(), 2);
  tuner.RecordConsumerStarved(100);  // no new throttling since: stays
  EXPECT_EQ(tuner.buffer_limit(), 2);
  tuner.RecordProducerThrottled();
  tuner.RecordProducerThrottled();
  tuner.RecordConsumerStarved(100);
  EXPECT_EQ(tuner.buffer_limit(), 4);
}

TEST(PrefetchAutotunerTest, RespectsTheElementAndByteCaps) {
  PrefetchAutotuner by_count(8, 1 << 20);
  for (int i = 0; i < 10; ++i) {
    by_count.RecordProducerThrottled();
    by_count.RecordConsumerStarved(1);
  }
  EXPECT_EQ(by_count.buffer_limit(), 8);

  PrefetchAutotuner by_bytes(64, 1000);
  for (int i = 0; i < 10; ++i) {
    by_bytes.RecordProducerThrottled();
    by_bytes.RecordConsumerStarved(300);  // 4 x 300 > 1000
  }
  EXPECT_EQ(by_bytes.buffer_limit(), 2);
}

}  // namespace
}  // namespace sluice
