#include "sluice/ops/op_registry.h"

#include <gtest/gtest.h>

#include <set>

namespace sluice {
namespace {

TEST(OpRegistryTest, EveryOpTheExecutorNeedsIsRegisteredOnce) {
  std::set<std::string_view> names;
  for (const OpDef* def : OpRegistry::Global().All()) {
    EXPECT_TRUE(names.insert(def->name).second) << def->name;
    EXPECT_NE(def->infer, nullptr) << def->name;
    EXPECT_NE(def->cpu_kernel, nullptr) << def->name;
  }
  for (std::string_view differentiable :
       {"matmul", "add", "sub", "mul", "div", "bias_add", "relu", "sigmoid", "tanh", "exp", "log", "neg", "softmax",
        "log_softmax", "sparse_softmax_cross_entropy_with_logits", "sigmoid_cross_entropy_with_logits",
        "mean_squared_error", "sum", "mean", "broadcast_to", "embedding_lookup", "masked_mean", "dropout",
        "reshape", "concat", "cast"}) {
    const OpDef* def = OpRegistry::Global().Find(differentiable);
    ASSERT_NE(def, nullptr) << differentiable;
    EXPECT_NE(def->gradient, nullptr) << differentiable;
  }
  EXPECT_EQ(OpRegistry::Global().Find("no_such_op"), nullptr);
}

TEST(OpRegistryTest, AttrsDescribeThemselves) {
  OpAttrs attrs{{"transpose_a", true}, {"axes", std::vector<int64_t>{0, 2}}};
  attrs.Set("rate", 0.5);
  EXPECT_EQ(attrs.DebugString(), "transpose_a=true, axes=[0, 2], rate=0.5");
  EXPECT_TRUE(attrs.GetBool("transpose_a"));
  EXPECT_FALSE(attrs.Has("transpose_b"));
}

}  // namespace
}  // namespace sluice
