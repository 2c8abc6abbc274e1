#include "sluice/executor/gradient_tape.h"

#include <gtest/gtest.h>

#include <cmath>
#include <thread>

#include "sluice/ops/binary_ops.h"
#include "sluice/ops/matmul.h"
#include "sluice/ops/reduce_ops.h"
#include "sluice/ops/unary_ops.h"

namespace sluice {
namespace {

TEST(GradientTapeTest, GradientOfAProductAndASum) {
  Variable x("x", Tensor::Scalar<double>(3));
  Variable y("y", Tensor::Scalar<double>(4));
  GradientTape tape;
  tape.Watch(x);
  tape.Watch(y);
  // z = x*y + x  ->  dz/dx = y + 1 = 5, dz/dy = x = 3
  Tensor z = *Add(*Mul(x.value(), y.value()), x.value());
  Variable* vars[] = {&x, &y};
  Result<std::vector<Tensor>> grads = tape.Gradient(z, vars);
  ASSERT_TRUE(grads.ok()) << grads.status();
  EXPECT_DOUBLE_EQ((*grads)[0].scalar<double>(), 5);
  EXPECT_DOUBLE_EQ((*grads)[1].scalar<double>(), 3);
}

TEST(GradientTapeTest, AccumulatesOverEveryUseOfAValue) {
  Variable w("w", Tensor::FromVector<double>({1, 2}, Shape{1, 2}));
  GradientTape tape;
  tape.Watch(w);
  Tensor h = *Tanh(w.value());
  // loss = sum(h * h + h): d/dh = 2h + 1, then through tanh.
  Tensor loss = *Sum(*Add(*Mul(h, h), h));
  Variable* vars[] = {&w};
  Result<std::vector<Tensor>> grads = tape.Gradient(loss, vars);
  ASSERT_TRUE(grads.ok()) << grads.status();
  for (int i = 0; i < 2; ++i) {
    const double t = std::tanh(w.value().data<double>()[i]);
    EXPECT_NEAR((*grads)[0].data<double>()[i], (2 * t + 1) * (1 - t * t), 1e-12);
  }
}

TEST(GradientTapeTest, NonPersistentTapeAnswersOnce) {
  Variable x("x", Tensor::Scalar<double>(2));
  GradientTape tape;
  tape.Watch(x);
  Tensor y = *Mul(x.value(), x.value());
  Variable* vars[] = {&x};
  ASSERT_TRUE(tape.Gradient(y, vars).ok());
  Result<std::vector<Tensor>> again = tape.Gradient(y, vars);
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.status().code(), StatusCode::kFailedPrecondition);
}

TEST(GradientTapeTest, PersistentTapeAnswersManyTimes) {
  Variable x("x", Tensor::Scalar<double>(2));
  GradientTape tape({.persistent = true});
  tape.Watch(x);
  Tensor y = *Mul(x.value(), x.value());
  Tensor z = *Mul(y, x.value());
  Variable* vars[] = {&x};
  EXPECT_DOUBLE_EQ((*tape.Gradient(y, vars))[0].scalar<double>(), 4);   // 2x
  EXPECT_DOUBLE_EQ((*tape.Gradient(z, vars))[0].scalar<double>(), 12);  // 3x^2
}

TEST(GradientTapeTest, UnconnectedVariableIsAnErrorNamingItOrZeros) {
  Variable used("dense/kernel", Tensor::Scalar<double>(1));
  Variable unused("dense/bias", Tensor::FromVector<double>({1, 2}));
  {
    GradientTape tape;
    tape.Watch(used);
    tape.Watch(unused);
    Tensor y = *Mul(used.value(), used.value());
    Variable* vars[] = {&used, &unused};
    Result<std::vector<Tensor>> grads = tape.Gradient(y, vars);
    ASSERT_FALSE(grads.ok());
    EXPECT_EQ(grads.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(grads.status().message().find("variable 'dense/bias' did not take part"), std::string::npos)
        << grads.status();
  }
  GradientTape tape;
  tape.Watch(used);
  Tensor y = *Mul(used.value(), used.value());
  Variable* vars[] = {&used, &unused};
  Result<std::vector<Tensor>> grads = tape.Gradient(y, vars, UnconnectedGradients::kZero);
  ASSERT_TRUE(grads.ok()) << grads.status();
  EXPECT_TRUE((*grads)[1].Equals(Tensor::FromVector<double>({0, 0})));
}

TEST(GradientTapeTest, StopGradientCutsTheGraph) {
  Variable x("x", Tensor::Scalar<double>(3));
  GradientTape tape;
  tape.Watch(x);
  // y = x * stop(x): dy/dx = stop(x) = 3, not 2x = 6.
  Tensor y = *Mul(x.value(), StopGradient(x.value()));
  Variable* vars[] = {&x};
  EXPECT_DOUBLE_EQ((*tape.Gradient(y, vars))[0].scalar<double>(), 3);
}

TEST(GradientTapeTest, RecordsOnlyWatchedComputation) {
  GradientTape tape;
  Tensor a = Tensor::Scalar<double>(2);
  Tensor b = *Mul(a, a);  // before watching: a constant
  tape.Watch(a);
  Tensor c = *Mul(a, b);
  Tensor sources[] = {a};
  Result<std::vector<Tensor>> grads = tape.Gradient(c, sources);
  ASSERT_TRUE(grads.ok()) << grads.status();
  EXPECT_DOUBLE_EQ((*grads)[0].scalar<double>(), 4);  // b, with b constant
}

TEST(GradientTapeTest, NestedTapesBothRecord) {
  Variable x("x", Tensor::Scalar<double>(5));
  GradientTape outer;
  outer.Watch(x);
  Tensor y;
  {
    GradientTape inner;
    inner.Watch(x);
    y = *Mul(x.value(), x.value());
    Variable* vars[] = {&x};
    EXPECT_DOUBLE_EQ((*inner.Gradient(y, vars))[0].scalar<double>(), 10);
  }
  Tensor z = *Add(y, x.value());
  Variable* vars[] = {&x};
  EXPECT_DOUBLE_EQ((*outer.Gradient(z, vars))[0].scalar<double>(), 11);
}

TEST(GradientTapeTest, SeesOnlyItsOwnThread) {
  Variable x("x", Tensor::Scalar<double>(2));
  GradientTape tape;
  tape.Watch(x);
  Tensor from_other_thread;
  std::thread([&] { from_other_thread = *Mul(x.value(), x.value()); }).join();
  Tensor sources[] = {x.value()};
  EXPECT_FALSE(tape.Gradient(from_other_thread, sources).ok());
}

TEST(GradientTapeTest, TwoLayerNetworkMatchesHandDerivation) {
  // loss = sum(relu(x W)), W [2, 2]; d/dW = x^T (x W > 0).
  Variable w("w", Tensor::FromVector<double>({1, -1, 2, 1}, Shape{2, 2}));
  const Tensor x = Tensor::FromVector<double>({1, 1, -1, 2}, Shape{2, 2});
  GradientTape tape;
  tape.Watch(w);
  Tensor loss = *Sum(*Relu(*MatMul(x, w.value())));
  Variable* vars[] = {&w};
  Result<std::vector<Tensor>> grads = tape.Gradient(loss, vars);
  ASSERT_TRUE(grads.ok()) << grads.status();
  // x W = [[3, 0], [3, 3]] -> mask [[1, 0], [1, 1]]; x^T mask = [[0, -1], [3, 2]].
  EXPECT_TRUE((*grads)[0].Equals(Tensor::FromVector<double>({0, -1, 3, 2}, Shape{2, 2})));
}

// One call of on_ready: which source, with what gradient.
struct ReadyCall {
  size_t source;
  double gradient;
};

TEST(GradientTapeTest, ReportsEachSourceOnceFinalLaterSourcesFirst) {
  // loss = w2 * (w1 * x) + w2: w2 is read last in the forward pass, so its
  // gradient is final first; w1's only at the end of the walk.
  Variable w1("w1", Tensor::Scalar<double>(2));
  Variable w2("w2", Tensor::Scalar<double>(3));
  Variable unused("unused", Tensor::Scalar<double>(7));
  const Tensor x = Tensor::Scalar<double>(5);
  GradientTape tape;
  tape.Watch(w1);
  tape.Watch(w2);
  tape.Watch(unused);
  Tensor loss = *Add(*Mul(w2.value(), *Mul(w1.value(), x)), w2.value());
  std::vector<ReadyCall> calls;
  Variable* vars[] = {&w1, &w2, &unused};
  Result<std::vector<Tensor>> grads =
      tape.Gradient(loss, vars, UnconnectedGradients::kZero, [&](size_t source, const Tensor& gradient) {
        calls.push_back({source, gradient.scalar<double>()});
        return OkStatus();
      });
  ASSERT_TRUE(grads.ok()) << grads.status();
  // d/dw1 = w2 * x = 15, d/dw2 = w1 * x + 1 = 11, unused: 0 (reported last).
  ASSERT_EQ(calls.size(), 3u);
  EXPECT_EQ(calls[0].source, 1u);
  EXPECT_DOUBLE_EQ(calls[0].gradient, 11);
  EXPECT_EQ(calls[1].source, 0u);
  EXPECT_DOUBLE_EQ(calls[1].gradient, 15);
  EXPECT_EQ(calls[2].source, 2u);
  EXPECT_DOUBLE_EQ(calls[2].gradient, 0);
  for (const ReadyCall& call : calls) EXPECT_DOUBLE_EQ((*grads)[call.source].scalar<double>(), call.gradient);
}

TEST(GradientTapeTest, ReportsAGradientBeforeTheWalkReachesEarlierRecords) {
  // A chain h1 = tanh(w1), h2 = tanh(h1 * w2), loss = sum(h2 * w3): w3's
  // gradient is reported while w1's is not yet known, and every report
  // equals what Gradient returns.
  Variable w1("w1", Tensor::FromVector<double>({0.1, 0.2}));
  Variable w2("w2", Tensor::FromVector<double>({0.3, -0.4}));
  Variable w3("w3", Tensor::FromVector<double>({0.5, 0.6}));
  GradientTape tape;
  for (Variable* w : {&w1, &w2, &w3}) tape.Watch(*w);
  Tensor loss = *Sum(*Mul(*Tanh(*Mul(*Tanh(w1.value()), w2.value())), w3.value()));
  std::vector<size_t> order;
  std::vector<Tensor> reported(3);
  Variable* vars[] = {&w1, &w2, &w3};
  Result<std::vector<Tensor>> grads =
      tape.Gradient(loss, vars, UnconnectedGradients::kError, [&](size_t source, const Tensor& gradient) {
        order.push_back(source);
        reported[source] = gradient;
        return OkStatus();
      });
  ASSERT_TRUE(grads.ok()) << grads.status();
  EXPECT_EQ(order, (std::vector<size_t>{2, 1, 0}));
  for (size_t i = 0; i < 3; ++i) {
    for (int j = 0; j < 2; ++j) EXPECT_DOUBLE_EQ(reported[i].data<double>()[j], (*grads)[i].data<double>()[j]);
  }
}

TEST(GradientTapeTest, AnErrorFromOnReadyStopsTheWalk) {
  // The first report (w2's) fails: w1's never comes.
  Variable w[] = {Variable("w1", Tensor::Scalar<double>(2)), Variable("w2", Tensor::Scalar<double>(3))};
  GradientTape tape;
  for (const Variable& v : w) tape.Watch(v);
  Tensor loss = *Mul(*Tanh(w[0].value()), w[1].value());
  int calls = 0;
  Variable* vars[] = {&w[0], &w[1]};
  Result<std::vector<Tensor>> grads =
      tape.Gradient(loss, vars, UnconnectedGradients::kError, [&](size_t, const Tensor&) {
        ++calls;
        return UnavailableError("the all-reduce failed");
      });
  ASSERT_FALSE(grads.ok());
  EXPECT_EQ(grads.status().code(), StatusCode::kUnavailable);
  EXPECT_EQ(calls, 1);
}

}  // namespace
}  // namespace sluice
