// TaskBuffer: what a session takes at once (up to its limits, a split's
// items ending with the split's end), how coordinated reads share a
// split, and the producer's waits for room and for sessions.
#include "sluice/service/task_buffer.h"

#include <gtest/gtest.h>

#include <future>
#include <thread>

#include "sluice/dataset/buffered_bytes.h"

namespace sluice::service {
namespace {

using std::chrono::milliseconds;
constexpr milliseconds kLong{20000};  // bounds waits that should end much sooner

TaskItem ElementItem(int64_t split_id, uint64_t index, uint64_t bytes = 4) {
  return {.split_id = split_id,
          .index = index,
          .element = Element{Tensor::Scalar<int64_t>(static_cast<int64_t>(index))},
          .bytes = bytes};
}

TaskItem SplitEnd(int64_t split_id, uint64_t count) {
  return {.kind = TaskItem::Kind::kSplitEnd, .split_id = split_id, .index = count};
}

// The items of `splits` splits of `per_split` elements each, every one
// followed by its end.
std::vector<TaskItem> Splits(int64_t splits, uint64_t per_split, uint64_t bytes = 4) {
  std::vector<TaskItem> items;
  for (int64_t split = 0; split < splits; ++split) {
    for (uint64_t i = 0; i < per_split; ++i) items.push_back(ElementItem(split, i, bytes));
    items.push_back(SplitEnd(split, per_split));
  }
  return items;
}

// (split id, index) of each item, a split's end as index -1.
std::vector<std::pair<int64_t, int64_t>> Names(const std::vector<TaskItem>& items) {
  std::vector<std::pair<int64_t, int64_t>> names;
  for (const TaskItem& item : items) {
    names.emplace_back(item.split_id,
                       item.kind == TaskItem::Kind::kSplitEnd ? -1 : static_cast<int64_t>(item.index));
  }
  return names;
}

TEST(TaskBufferTest, APopTakesUpToItsLimitAndEndsWithItsSplit) {
  TaskBuffer buffer(/*num_consumers=*/0, /*max_bytes=*/1 << 20);
  std::vector<TaskItem> items = Splits(2, 5);
  ASSERT_TRUE(buffer.Push(items));
  EXPECT_TRUE(items.empty()) << "Push takes the items";
  std::vector<TaskItem> got;
  ASSERT_EQ(buffer.Pop(1, 0, kLong, {.items = 3, .bytes = 1 << 20}, &got), TaskBuffer::PopResult::kItem);
  EXPECT_EQ(Names(got), (std::vector<std::pair<int64_t, int64_t>>{{0, 0}, {0, 1}, {0, 2}}));
  got.clear();
  ASSERT_EQ(buffer.Pop(1, 0, kLong, {.items = 100, .bytes = 1 << 20}, &got), TaskBuffer::PopResult::kItem);
  EXPECT_EQ(Names(got), (std::vector<std::pair<int64_t, int64_t>>{{0, 3}, {0, 4}, {0, -1}}))
      << "a pop stops at its split's end";
  got.clear();
  ASSERT_EQ(buffer.Pop(1, 0, kLong, {.items = 100, .bytes = 1 << 20}, &got), TaskBuffer::PopResult::kItem);
  EXPECT_EQ(got.size(), 6u);
  EXPECT_EQ(got.front().split_id, 1);
  EXPECT_EQ(buffer.bytes(), 0u);
}

TEST(TaskBufferTest, APopTakesElementsUpToItsBytesButAlwaysOne) {
  TaskBuffer buffer(/*num_consumers=*/0, /*max_bytes=*/1 << 20);
  std::vector<TaskItem> items = Splits(1, 6, /*bytes=*/1000);
  ASSERT_TRUE(buffer.Push(items));
  std::vector<TaskItem> got;
  ASSERT_EQ(buffer.Pop(1, 0, kLong, {.items = 100, .bytes = 2500}, &got), TaskBuffer::PopResult::kItem);
  EXPECT_EQ(got.size(), 3u) << "it stops once its elements reach the bytes";
  got.clear();
  ASSERT_EQ(buffer.Pop(1, 0, kLong, {.items = 100, .bytes = 1}, &got), TaskBuffer::PopResult::kItem);
  EXPECT_EQ(got.size(), 1u) << "one item goes whatever its size";
}

TEST(TaskBufferTest, SessionsTakeWholeSplitsFirstComeFirstServed) {
  TaskBuffer buffer(/*num_consumers=*/0, /*max_bytes=*/1 << 20);
  std::vector<TaskItem> items = Splits(2, 3);
  ASSERT_TRUE(buffer.Push(items));
  std::vector<TaskItem> first, second;
  ASSERT_EQ(buffer.Pop(1, 0, kLong, {.items = 2, .bytes = 1 << 20}, &first), TaskBuffer::PopResult::kItem);
  ASSERT_EQ(buffer.Pop(2, 0, kLong, {.items = 100, .bytes = 1 << 20}, &second), TaskBuffer::PopResult::kItem);
  ASSERT_EQ(buffer.Pop(1, 0, kLong, {.items = 100, .bytes = 1 << 20}, &first), TaskBuffer::PopResult::kItem);
  EXPECT_EQ(Names(first), (std::vector<std::pair<int64_t, int64_t>>{{0, 0}, {0, 1}, {0, 2}, {0, -1}}));
  EXPECT_EQ(Names(second), (std::vector<std::pair<int64_t, int64_t>>{{1, 0}, {1, 1}, {1, 2}, {1, -1}}));
  buffer.Finish();
  std::vector<TaskItem> none;
  EXPECT_EQ(buffer.Pop(1, 0, kLong, {.items = 100, .bytes = 1 << 20}, &none), TaskBuffer::PopResult::kEnd);
}

TEST(TaskBufferTest, CoordinatedConsumersTakeTheirShareAcrossSplitEnds) {
  TaskBuffer buffer(/*num_consumers=*/2, /*max_bytes=*/1 << 20);
  std::vector<TaskItem> items = Splits(2, 4);
  ASSERT_TRUE(buffer.Push(items));
  std::vector<TaskItem> zero, one;
  ASSERT_EQ(buffer.Pop(1, 0, kLong, {.items = 100, .bytes = 1 << 20}, &zero), TaskBuffer::PopResult::kItem);
  ASSERT_EQ(buffer.Pop(2, 1, kLong, {.items = 100, .bytes = 1 << 20}, &one), TaskBuffer::PopResult::kItem);
  EXPECT_EQ(Names(zero), (std::vector<std::pair<int64_t, int64_t>>{{0, 0}, {0, 2}, {0, -1}, {1, 0}, {1, 2}, {1, -1}}));
  EXPECT_EQ(Names(one), (std::vector<std::pair<int64_t, int64_t>>{{0, 1}, {0, 3}, {0, -1}, {1, 1}, {1, 3}, {1, -1}}));
}

// A dropped consumer's share, buffered and to come, is let go; its session
// hears it was dropped, and the others read on.
TEST(TaskBufferTest, ADroppedConsumersShareIsLetGo) {
  TaskBuffer buffer(/*num_consumers=*/2, /*max_bytes=*/1 << 20);
  std::vector<TaskItem> items = Splits(1, 4);
  ASSERT_TRUE(buffer.Push(items));
  const uint64_t held = buffer.bytes();
  EXPECT_FALSE(buffer.ConsumerDropped(1));
  buffer.DropConsumer(1);
  EXPECT_TRUE(buffer.ConsumerDropped(1));
  EXPECT_FALSE(buffer.ConsumerDropped(0));
  EXPECT_EQ(buffer.bytes(), held - 2 * (4 + TaskBuffer::kItemOverheadBytes) - TaskBuffer::kItemOverheadBytes)
      << "two elements and a split end";
  std::vector<TaskItem> got;
  EXPECT_EQ(buffer.Pop(2, 1, kLong, {.items = 100, .bytes = 1 << 20}, &got), TaskBuffer::PopResult::kDropped);
  std::vector<TaskItem> more = Splits(1, 2);
  ASSERT_TRUE(buffer.Push(more));
  ASSERT_EQ(buffer.Pop(1, 0, kLong, {.items = 100, .bytes = 1 << 20}, &got), TaskBuffer::PopResult::kItem);
  EXPECT_EQ(Names(got), (std::vector<std::pair<int64_t, int64_t>>{{0, 0}, {0, 2}, {0, -1}, {0, 0}, {0, -1}}));
  EXPECT_EQ(buffer.bytes(), 0u) << "nothing of the dropped consumer's is held";
}

// Room for two items of 1000 bytes.
constexpr uint64_t kTwoItems = 2 * (1000 + TaskBuffer::kItemOverheadBytes);

TEST(TaskBufferTest, AProducerWaitsForRoomAndSeesAWaitingSession) {
  TaskBuffer buffer(/*num_consumers=*/0, kTwoItems);
  EXPECT_FALSE(buffer.SessionsWaiting());
  std::future<TaskBuffer::PopResult> popped;
  std::vector<TaskItem> got;
  popped = std::async(std::launch::async, [&] {
    return buffer.Pop(1, 0, kLong, {.items = 100, .bytes = 1 << 20}, &got);
  });
  for (int i = 0; i < 2000 && !buffer.SessionsWaiting(); ++i) std::this_thread::sleep_for(milliseconds(1));
  EXPECT_TRUE(buffer.SessionsWaiting()) << "the session waits for an item";
  std::vector<TaskItem> one{ElementItem(0, 0, 1000)};
  ASSERT_TRUE(buffer.Push(one));
  ASSERT_EQ(popped.wait_for(kLong), std::future_status::ready);
  EXPECT_EQ(popped.get(), TaskBuffer::PopResult::kItem);
  EXPECT_FALSE(buffer.SessionsWaiting());

  // Full at two items: the third element waits until a session takes one.
  std::vector<TaskItem> three{ElementItem(0, 1, 1000), ElementItem(0, 2, 1000), ElementItem(0, 3, 1000)};
  std::future<bool> pushed = std::async(std::launch::async, [&] { return buffer.Push(three); });
  EXPECT_EQ(pushed.wait_for(milliseconds(100)), std::future_status::timeout);
  got.clear();
  ASSERT_EQ(buffer.Pop(1, 0, kLong, {.items = 1, .bytes = 1 << 20}, &got), TaskBuffer::PopResult::kItem);
  ASSERT_EQ(pushed.wait_for(kLong), std::future_status::ready);
  EXPECT_TRUE(pushed.get());
  EXPECT_EQ(buffer.bytes(), kTwoItems);
  buffer.Cancel();
  std::vector<TaskItem> more{ElementItem(0, 4)};
  EXPECT_FALSE(buffer.Push(more)) << "a cancelled buffer takes nothing";
}

// A session waiting for items is woken by those of a group that fit, while
// the rest of the group waits for the room that session will make.
TEST(TaskBufferTest, ASessionTakesWhatFitsOfAGroupWhileTheRestWaitsForRoom) {
  TaskBuffer buffer(/*num_consumers=*/0, kTwoItems);
  std::vector<TaskItem> got;
  const auto start = std::chrono::steady_clock::now();
  std::future<TaskBuffer::PopResult> popped = std::async(std::launch::async, [&] {
    return buffer.Pop(1, 0, kLong, {.items = 100, .bytes = 1 << 20}, &got);
  });
  for (int i = 0; i < 2000 && !buffer.SessionsWaiting(); ++i) std::this_thread::sleep_for(milliseconds(1));
  ASSERT_TRUE(buffer.SessionsWaiting());
  std::vector<TaskItem> three{ElementItem(0, 0, 1000), ElementItem(0, 1, 1000), ElementItem(0, 2, 1000)};
  std::future<bool> pushed = std::async(std::launch::async, [&] { return buffer.Push(three); });
  ASSERT_EQ(popped.wait_for(kLong), std::future_status::ready);
  EXPECT_EQ(popped.get(), TaskBuffer::PopResult::kItem);
  EXPECT_LT(std::chrono::steady_clock::now() - start, kLong / 2) << "the session slept through the group";
  EXPECT_EQ(Names(got), (std::vector<std::pair<int64_t, int64_t>>{{0, 0}, {0, 1}}));
  ASSERT_EQ(pushed.wait_for(kLong), std::future_status::ready);
  EXPECT_TRUE(pushed.get());
}

// Items that hold nothing (empty elements, errors with no message, split
// ends) are charged for themselves: a buffer of max_bytes holds a bounded
// number of them, and the producer waits for room.
TEST(TaskBufferTest, ItemsThatHoldNothingAreChargedForThemselves) {
  constexpr uint64_t kRoom = 10 * TaskBuffer::kItemOverheadBytes;
  TaskBuffer buffer(/*num_consumers=*/0, kRoom);
  std::vector<TaskItem> items;
  for (uint64_t i = 0; i < 300; ++i) {
    TaskItem item{.split_id = 0, .index = i};
    if (i % 3 == 1) item.kind = TaskItem::Kind::kError;
    if (i % 3 == 2) item.element = Element{Tensor::Allocate(DType::kFloat32, Shape{0})};
    items.push_back(std::move(item));
  }
  std::future<bool> pushed = std::async(std::launch::async, [&] { return buffer.Push(items); });
  EXPECT_EQ(pushed.wait_for(milliseconds(200)), std::future_status::timeout) << "the producer waits for room";
  EXPECT_EQ(buffer.bytes(), kRoom);
  std::vector<TaskItem> got;
  ASSERT_EQ(buffer.Pop(1, 0, kLong, {.items = 4, .bytes = 1 << 20}, &got), TaskBuffer::PopResult::kItem);
  EXPECT_EQ(got.size(), 4u);
  buffer.Cancel();
  ASSERT_EQ(pushed.wait_for(kLong), std::future_status::ready);
  EXPECT_FALSE(pushed.get());
}

// What an item holds beside itself: its element's tensors and their
// handles, or its error's message; a coordinated split's end is held, and
// charged, once per consumer.
TEST(TaskBufferTest, ContentBytesCountTensorHandlesAndMessagesAndSplitEndsCountPerConsumer) {
  EXPECT_EQ(TaskItem::ContentBytes(Element{Tensor::Allocate(DType::kFloat32, Shape{0})}),
            static_cast<uint64_t>(kBufferTensorBytes));
  EXPECT_EQ(TaskItem::ContentBytes(Element{Tensor::Scalar<int64_t>(1), Tensor::Scalar<int64_t>(2)}),
            16 + 2 * static_cast<uint64_t>(kBufferTensorBytes));
  EXPECT_EQ(TaskItem::ContentBytes(InvalidArgumentError("12345")), 5u);
  TaskBuffer buffer(/*num_consumers=*/3, /*max_bytes=*/1 << 20);
  std::vector<TaskItem> end{SplitEnd(0, 0)};
  ASSERT_TRUE(buffer.Push(end));
  EXPECT_EQ(buffer.bytes(), 3 * TaskBuffer::kItemOverheadBytes);
}

}  // namespace
}  // namespace sluice::service
