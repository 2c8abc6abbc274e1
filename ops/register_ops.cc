// The one place every op is registered (ops/op_registry.h).
#include "ops/bias_add.h"
#include "ops/binary_ops.h"
#include "ops/cross_entropy.h"
#include "ops/fill.h"
#include "ops/matmul.h"
#include "ops/op_registry.h"
#include "ops/reduce_ops.h"
#include "ops/reshape.h"
#include "ops/unary_ops.h"

namespace sluice {

void RegisterAllOps(OpRegistry& registry) {
  RegisterBiasAddOp(registry);
  RegisterBinaryOps(registry);
  RegisterCrossEntropyOps(registry);
  RegisterFillOps(registry);
  RegisterMatMulOp(registry);
  RegisterReduceOps(registry);
  RegisterReshapeOp(registry);
  RegisterUnaryOps(registry);
}

}  // namespace sluice
