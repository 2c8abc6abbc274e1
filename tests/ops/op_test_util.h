// Helpers shared by the op tests: comparing tensors with a tolerance and
// taking one gradient through the tape.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "sluice/executor/gradient_tape.h"

namespace sluice::testing {

// The values of a numeric tensor as doubles.
inline std::vector<double> FloatValues(const Tensor& t) {
  std::vector<double> values(t.NumElements());
  VisitNumericDType(t.dtype(), [&](auto zero) {
    using T = decltype(zero);
    for (int64_t i = 0; i < t.NumElements(); ++i) values[i] = ConvertValue<double>(t.data<T>()[i]);
  });
  return values;
}

// got has want's dtype and shape, and values within `tolerance` (absolute).
inline void ExpectTensorNear(const Result<Tensor>& got, const Tensor& want, double tolerance = 1e-6) {
  ASSERT_TRUE(got.ok()) << got.status();
  ASSERT_EQ(got->dtype(), want.dtype());
  ASSERT_EQ(got->shape(), want.shape());
  const std::vector<double> got_values = FloatValues(*got), want_values = FloatValues(want);
  for (size_t i = 0; i < got_values.size(); ++i) {
    EXPECT_NEAR(got_values[i], want_values[i], tolerance) << "element " << i;
  }
}

// d(sum(f(x)))/dx through a GradientTape.
inline Result<Tensor> GradientOfSum(const std::function<Result<Tensor>(const Tensor&)>& f, Tensor x) {
  x = x.Clone();
  GradientTape tape;
  tape.Watch(x);
  SLUICE_ASSIGN_OR_RETURN(Tensor y, f(x));
  const Tensor sources[] = {x};
  SLUICE_ASSIGN_OR_RETURN(std::vector<Tensor> grads, tape.Gradient(y, sources));
  return grads[0];
}

// Expects an InvalidArgument whose message contains `text`.
inline void ExpectInvalidArgument(const Result<Tensor>& result, std::string_view text) {
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), StatusCode::kInvalidArgument) << result.status();
  EXPECT_NE(result.status().message().find(text), std::string::npos) << result.status();
}

}  // namespace sluice::testing
