#include "sluice/executor/gradient_buckets.h"

#include <gtest/gtest.h>

#include "sluice/executor/local_collectives.h"

namespace sluice {
namespace {

// Two ranks, the other of which contributes three times this rank's
// gradients: a mean is then twice this rank's values. Records the element
// count of every all-reduce as it starts; each one finishes only in Wait.
class TwoRanks final : public Collectives {
 public:
  int rank() const override { return 0; }
  int size() const override { return 2; }
  Status AllReduce(Tensor&, ReduceOp) override { return UnimplementedError("not used"); }
  Result<std::unique_ptr<PendingAllReduce>> StartAllReduce(Tensor& tensor, ReduceOp op) override {
    started.push_back(tensor.NumElements());
    return std::unique_ptr<PendingAllReduce>(new Pending(tensor, op));
  }
  Status Broadcast(Tensor&) override { return OkStatus(); }
  Status Barrier() override { return OkStatus(); }
  Result<std::vector<double>> AllGather(double value) override { return std::vector<double>{value, 3 * value}; }
  Result<std::vector<int64_t>> AllGather(int64_t value) override { return std::vector<int64_t>{value, value}; }
  Result<std::vector<std::string>> Gather(const std::string& bytes, int64_t) override {
    return std::vector<std::string>{bytes, bytes};
  }

  std::vector<int64_t> started;

 private:
  class Pending final : public PendingAllReduce {
   public:
    Pending(Tensor tensor, ReduceOp op) : tensor_(std::move(tensor)), op_(op) {}
    Result<bool> Test() override { return done_; }
    Status Wait() override {
      if (done_) return OkStatus();
      done_ = true;
      float* data = tensor_.mutable_data<float>();
      for (int64_t i = 0; i < tensor_.NumElements(); ++i) data[i] *= op_ == ReduceOp::kMean ? 2 : 4;
      return OkStatus();
    }

   private:
    Tensor tensor_;
    const ReduceOp op_;
    bool done_ = false;
  };
};

Tensor Filled(const Shape& shape, float value) {
  Tensor t = Tensor::Allocate(DType::kFloat32, shape);
  for (int64_t i = 0; i < t.NumElements(); ++i) t.mutable_data<float>()[i] = value + static_cast<float>(i);
  return t;
}

// Four float32 variables: 256 KiB, 1 KiB, 512 KiB and 40 bytes.
struct FourVariables {
  Variable v0{"v0", Tensor::Allocate(DType::kFloat32, Shape{256, 256})};
  Variable v1{"v1", Tensor::Allocate(DType::kFloat32, Shape{256})};
  Variable v2{"v2", Tensor::Allocate(DType::kFloat32, Shape{512, 256})};
  Variable v3{"v3", Tensor::Allocate(DType::kFloat32, Shape{10})};
  std::vector<Variable*> all{&v0, &v1, &v2, &v3};
};

constexpr GradientBucketsOptions k600KiB{.bucket_bytes = 600 << 10};

TEST(GradientBucketsTest, FillsBucketsInReverseOrderAndStartsEachWhenItsGradientsAreIn) {
  FourVariables variables;
  TwoRanks ranks;
  GradientBuckets buckets(variables.all, ranks, k600KiB);
  // Reversed: v3 + v2 + v1 fit in 600 KiB; v0 does not join them.
  ASSERT_EQ(buckets.bucket_count(), 2u);
  buckets.BeginStep();
  std::vector<Tensor> gradients;
  for (Variable* v : variables.all) gradients.push_back(Filled(v->value().shape(), 1));
  for (size_t i : {3, 2}) ASSERT_TRUE(buckets.OnGradientReady(i, gradients[i]).ok());
  EXPECT_TRUE(ranks.started.empty());
  ASSERT_TRUE(buckets.OnGradientReady(1, gradients[1]).ok());
  // The first bucket is on its way before v0's gradient exists.
  EXPECT_EQ(ranks.started, (std::vector<int64_t>{10 + 512 * 256 + 256}));
  ASSERT_TRUE(buckets.OnGradientReady(0, gradients[0]).ok());
  EXPECT_EQ(ranks.started.size(), 2u);
  Result<std::vector<Tensor>> averaged = buckets.Finish();
  ASSERT_TRUE(averaged.ok()) << averaged.status();
  ASSERT_EQ(averaged->size(), 4u);
  for (size_t i = 0; i < 4; ++i) {
    ASSERT_EQ((*averaged)[i].shape(), gradients[i].shape());
    for (int64_t j = 0; j < gradients[i].NumElements(); j += 97) {
      ASSERT_EQ((*averaged)[i].data<float>()[j], 2 * gradients[i].data<float>()[j]) << "variable " << i;
    }
  }
}

TEST(GradientBucketsTest, StartsBucketsInBucketOrderWhateverOrderGradientsCome) {
  FourVariables variables;
  TwoRanks ranks;
  GradientBuckets buckets(variables.all, ranks, k600KiB);
  for (int step = 0; step < 2; ++step) {
    ranks.started.clear();
    buckets.BeginStep();
    // v0's bucket (the second) is complete first, but waits for the first.
    ASSERT_TRUE(buckets.OnGradientReady(0, Filled(Shape{256, 256}, 0)).ok());
    EXPECT_TRUE(ranks.started.empty());
    for (size_t i : {1, 2, 3}) {
      ASSERT_TRUE(buckets.OnGradientReady(i, Filled(variables.all[i]->value().shape(), 0)).ok());
    }
    EXPECT_EQ(ranks.started, (std::vector<int64_t>{10 + 512 * 256 + 256, 256 * 256})) << "step " << step;
    ASSERT_TRUE(buckets.Finish().ok());
  }
}

TEST(GradientBucketsTest, ADTypeChangeOrALargeVariableStartsANewBucket) {
  Variable small("small", Tensor::Allocate(DType::kFloat32, Shape{4}));
  Variable wide("wide", Tensor::Allocate(DType::kFloat64, Shape{4}));
  Variable large("large", Tensor::Allocate(DType::kFloat32, Shape{1 << 20}));
  Variable last("last", Tensor::Allocate(DType::kFloat32, Shape{4}));
  LocalCollectives local;
  std::vector<Variable*> all = {&small, &wide, &large, &last};
  // Reversed: [last], [large] (4 MiB alone), [wide] (float64), [small].
  GradientBuckets buckets(all, local, {.bucket_bytes = 1 << 20});
  EXPECT_EQ(buckets.bucket_count(), 4u);
}

TEST(GradientBucketsTest, WrongGradientsAndMissingOnesAreErrors) {
  FourVariables variables;
  LocalCollectives local;
  GradientBuckets buckets(variables.all, local, k600KiB);
  buckets.BeginStep();
  const Status wrong_shape = buckets.OnGradientReady(1, Filled(Shape{255}, 0));
  EXPECT_EQ(wrong_shape.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(wrong_shape.message().find("the gradient of 'v1' is float32[255]; the variable is float32[256]"),
            std::string::npos)
      << wrong_shape;
  ASSERT_TRUE(buckets.OnGradientReady(1, Filled(Shape{256}, 0)).ok());
  EXPECT_EQ(buckets.OnGradientReady(1, Filled(Shape{256}, 0)).code(), StatusCode::kInternal);
  const Result<std::vector<Tensor>> missing = buckets.Finish();
  EXPECT_EQ(missing.status().code(), StatusCode::kInternal);
  EXPECT_NE(missing.status().message().find("'v0' was not reported"), std::string::npos) << missing.status();
}

}  // namespace
}  // namespace sluice
