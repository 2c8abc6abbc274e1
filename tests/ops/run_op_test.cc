#include "sluice/ops/run_op.h"

#include <gtest/gtest.h>

#include "sluice/ops/op_recorder.h"
#include "sluice/ops/op_registry.h"

namespace sluice {
namespace {

TEST(RunOpTest, ChecksTheInputCount) {
  const OpDef& add = OpRegistry::Global().Get("add");
  const Tensor one[] = {Tensor::Scalar<float>(1)};
  Result<std::vector<Tensor>> bad = RunOp(add, one);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("add: expected 2 inputs, got 1"), std::string::npos) << bad.status();
  const Tensor unset[] = {Tensor::Scalar<float>(1), Tensor()};
  EXPECT_NE(RunOp(add, unset).status().message().find("add: input 1 is not set"), std::string::npos);
}

// Counts what it sees.
class CountingRecorder : public OpRecorder {
 public:
  void OnOpRun(const OpDef& def, const OpAttrs&, std::span<const Tensor> inputs, std::span<Tensor> outputs) override {
    names.push_back(std::string(def.name));
    EXPECT_EQ(outputs.size(), 1u);
    EXPECT_EQ(inputs.size(), 2u);
  }
  std::vector<std::string> names;
};

TEST(RunOpTest, RecordersSeeSuccessfulCallsOnTheirThreadWhileInstalled) {
  const OpDef& mul = OpRegistry::Global().Get("mul");
  const Tensor inputs[] = {Tensor::Scalar<float>(2), Tensor::Scalar<float>(3)};
  CountingRecorder outer, inner;
  {
    ScopedOpRecorder install_outer(&outer);
    ASSERT_TRUE(RunOp(mul, inputs).ok());
    {
      ScopedOpRecorder install_inner(&inner);
      Result<std::vector<Tensor>> product = RunOp(mul, inputs);
      ASSERT_TRUE(product.ok());
      EXPECT_EQ((*product)[0].scalar<float>(), 6);
      const Tensor mismatched[] = {Tensor::Scalar<float>(2), Tensor::Scalar<double>(3)};
      EXPECT_FALSE(RunOp(mul, mismatched).ok());  // failed calls are not recorded
    }
  }
  ASSERT_TRUE(RunOp(mul, inputs).ok());
  EXPECT_EQ(outer.names, (std::vector<std::string>{"mul", "mul"}));
  EXPECT_EQ(inner.names, (std::vector<std::string>{"mul"}));
}

}  // namespace
}  // namespace sluice
