// ExpectGradientsMatchFiniteDifferences: checks an op's gradient rule
// against central differences, the way flashlight's jacobianTestImpl does.
//
// The scalar checked is sum(f(inputs) * w) for fixed random weights w, so
// every output element contributes with a different weight. Every float64
// input is differentiated; other inputs (indices, labels) are held fixed.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <random>
#include <vector>

#include "sluice/executor/gradient_tape.h"
#include "sluice/ops/binary_ops.h"
#include "sluice/ops/reduce_ops.h"

namespace sluice::testing {

using OpUnderTest = std::function<Result<Tensor>(const std::vector<Tensor>&)>;

inline Tensor RandomTensor(const Shape& shape, uint64_t seed, double low = -1.0, double high = 1.0) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> uniform(low, high);
  Tensor t = Tensor::Allocate(DType::kFloat64, shape);
  for (int64_t i = 0; i < t.NumElements(); ++i) t.mutable_data<double>()[i] = uniform(rng);
  return t;
}

inline double WeightedSum(const OpUnderTest& f, const std::vector<Tensor>& inputs, const Tensor& weights) {
  Result<Tensor> out = f(inputs);
  SLUICE_CHECK(out.ok()) << out.status();
  Result<Tensor> product = Mul(*out, weights);
  SLUICE_CHECK(product.ok()) << product.status();
  return Sum(*product)->scalar<double>();
}

inline void ExpectGradientsMatchFiniteDifferences(const OpUnderTest& f, std::vector<Tensor> inputs,
                                                  double tolerance = 1e-6, double epsilon = 1e-6) {
  Result<Tensor> probe = f(inputs);
  ASSERT_TRUE(probe.ok()) << probe.status();
  const Tensor weights = RandomTensor(probe->shape(), /*seed=*/7);

  std::vector<Tensor> analytic;
  std::vector<size_t> checked;
  {
    GradientTape tape;
    std::vector<Tensor> sources;
    for (size_t i = 0; i < inputs.size(); ++i) {
      if (inputs[i].dtype() != DType::kFloat64) continue;
      inputs[i] = inputs[i].Clone();
      tape.Watch(inputs[i]);
      sources.push_back(inputs[i]);
      checked.push_back(i);
    }
    Result<Tensor> out = f(inputs);
    ASSERT_TRUE(out.ok()) << out.status();
    Result<Tensor> target = Sum(*Mul(*out, weights));
    ASSERT_TRUE(target.ok()) << target.status();
    Result<std::vector<Tensor>> grads = tape.Gradient(*target, sources, UnconnectedGradients::kZero);
    ASSERT_TRUE(grads.ok()) << grads.status();
    analytic = *std::move(grads);
  }

  for (size_t k = 0; k < checked.size(); ++k) {
    const size_t i = checked[k];
    ASSERT_EQ(analytic[k].shape(), inputs[i].shape()) << "input " << i;
    for (int64_t j = 0; j < inputs[i].NumElements(); ++j) {
      std::vector<Tensor> plus = inputs, minus = inputs;
      plus[i] = inputs[i].Clone();
      minus[i] = inputs[i].Clone();
      plus[i].mutable_data<double>()[j] += epsilon;
      minus[i].mutable_data<double>()[j] -= epsilon;
      const double numeric = (WeightedSum(f, plus, weights) - WeightedSum(f, minus, weights)) / (2 * epsilon);
      const double got = analytic[k].data<double>()[j];
      EXPECT_NEAR(got, numeric, tolerance * std::max(1.0, std::abs(numeric)))
          << "d/d input " << i << " element " << j;
    }
  }
}

}  // namespace sluice::testing
