#include "sluice/core/component_vector.h"

#include <gtest/gtest.h>

#include <memory>
#include <vector>

namespace sluice {
namespace {

Tensor Value(int64_t v) { return Tensor::Scalar<int64_t>(v); }

std::vector<int64_t> Values(const ComponentVector& v) {
  std::vector<int64_t> out;
  for (const Tensor& t : v) out.push_back(t.valid() ? t.scalar<int64_t>() : -1);
  return out;
}

// A string tensor's buffer outlives every tensor that shares it; the test
// watches one through a weak reference to its backing.
struct Watched {
  Tensor tensor;
  std::weak_ptr<const Buffer> backing;
  Watched() {
    std::shared_ptr<const Buffer> buffer = Buffer::Allocate(64);
    backing = buffer;
    tensor = Tensor::Allocate(DType::kString, Shape{});
    tensor.AddBacking(buffer);
  }
};

TEST(ComponentVectorTest, GrowsPastItsInlineCapacityKeepingOrder) {
  ComponentVector v;
  EXPECT_TRUE(v.empty());
  EXPECT_EQ(v.capacity(), ComponentVector::kInlineCapacity);
  for (int64_t i = 0; i < 9; ++i) v.push_back(Value(i));
  EXPECT_EQ(Values(v), (std::vector<int64_t>{0, 1, 2, 3, 4, 5, 6, 7, 8}));
  EXPECT_GE(v.capacity(), 9u);
  EXPECT_EQ(v.back().scalar<int64_t>(), 8);
}

TEST(ComponentVectorTest, PushBackRowAppendsViewsOfRowsInlineAndOnTheHeap) {
  Tensor run = Tensor::Allocate(DType::kInt64, Shape{4});
  for (int64_t i = 0; i < 4; ++i) run.mutable_data<int64_t>()[i] = 10 * i;
  Tensor matrix = Tensor::Allocate(DType::kInt64, Shape{2, 3});
  for (int64_t i = 0; i < 6; ++i) matrix.mutable_data<int64_t>()[i] = i;
  const int64_t rows[] = {3, 0, 2};  // the third goes past the inline slots
  ComponentVector v;
  for (int64_t row : rows) v.push_back_row(run, row);
  v.push_back_row(matrix, 1);
  ASSERT_EQ(v.size(), 4u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(v[i].shape(), Shape{});
    EXPECT_EQ(v[i].raw_data(), run.Row(rows[i]).raw_data()) << "component " << i << " is a view of its row";
  }
  EXPECT_EQ(Values(ComponentVector{v[0], v[1], v[2]}), (std::vector<int64_t>{30, 0, 20}));
  EXPECT_EQ(v[3].shape(), Shape{3});
  EXPECT_EQ(v[3].data<int64_t>()[0], 3);
}

TEST(ComponentVectorTest, MovingLeavesTheSourceEmptyInlineOrOnTheHeap) {
  for (size_t n : {0, 1, 2, 3, 6}) {
    ComponentVector v;
    for (size_t i = 0; i < n; ++i) v.push_back(Value(static_cast<int64_t>(i)));
    const std::vector<int64_t> expected = Values(v);
    ComponentVector moved(std::move(v));
    EXPECT_EQ(Values(moved), expected) << n;
    EXPECT_TRUE(v.empty()) << n;  // NOLINT: the moved-from state is specified
    v.push_back(Value(42));       // and usable
    EXPECT_EQ(Values(v), std::vector<int64_t>{42});
    ComponentVector assigned{Value(-5), Value(-6), Value(-7)};
    assigned = std::move(moved);
    EXPECT_EQ(Values(assigned), expected) << n;
    EXPECT_TRUE(moved.empty()) << n;  // NOLINT
  }
}

TEST(ComponentVectorTest, CopiesShareBuffersAndTheLastOneReleasesThem) {
  Watched watched;
  {
    ComponentVector a{watched.tensor};
    watched.tensor = Tensor();
    ComponentVector b = a;
    ComponentVector c{Value(1), Value(2), Value(3)};
    c = b;
    ComponentVector d(std::move(a));
    EXPECT_EQ(c.size(), 1u);
    EXPECT_FALSE(watched.backing.expired());
  }
  EXPECT_TRUE(watched.backing.expired());
}

TEST(ComponentVectorTest, ReleasesTensorsOnEveryPath) {
  Watched watched;
  {
    ComponentVector v;
    for (int i = 0; i < 5; ++i) v.push_back(watched.tensor);
    ComponentVector moved(std::move(v));
    moved.resize(1);
    moved.insert(moved.begin(), watched.tensor);
    moved.insert(moved.end(), moved.begin(), moved.end());  // a range of itself
    EXPECT_EQ(moved.size(), 4u);
    moved.assign(moved.begin() + 1, moved.end());  // a range of itself
    EXPECT_EQ(moved.size(), 3u);
    moved.clear();
    moved.push_back(watched.tensor);
  }
  watched.tensor = Tensor();
  EXPECT_TRUE(watched.backing.expired());
}

TEST(ComponentVectorTest, InsertAndResize) {
  ComponentVector v{Value(1), Value(4)};
  v.insert(v.begin() + 1, Value(2));
  const std::vector<Tensor> more = {Value(3), Value(3)};
  auto it = v.insert(v.begin() + 2, more.begin(), more.end());
  EXPECT_EQ(it, v.begin() + 2);
  EXPECT_EQ(Values(v), (std::vector<int64_t>{1, 2, 3, 3, 4}));
  v.push_back(v[0]);  // an element of itself, while it grows
  EXPECT_EQ(Values(v), (std::vector<int64_t>{1, 2, 3, 3, 4, 1}));
  v.resize(2);
  v.resize(3);
  EXPECT_EQ(Values(v), (std::vector<int64_t>{1, 2, -1}));
  v.assign(more.begin(), more.end());
  EXPECT_EQ(Values(v), (std::vector<int64_t>{3, 3}));
}

}  // namespace
}  // namespace sluice
