// The one place every op is registered (ops/op_registry.h).
#include "sluice/ops/bias_add.h"
#include "sluice/ops/binary_ops.h"
#include "sluice/ops/cast.h"
#include "sluice/ops/concat.h"
#include "sluice/ops/cross_entropy.h"
#include "sluice/ops/dropout.h"
#include "sluice/ops/embedding_lookup.h"
#include "sluice/ops/fill.h"
#include "sluice/ops/masked_mean.h"
#include "sluice/ops/matmul.h"
#include "sluice/ops/op_registry.h"
#include "sluice/ops/reduce_ops.h"
#include "sluice/ops/reshape.h"
#include "sluice/ops/softmax.h"
#include "sluice/ops/unary_ops.h"

namespace sluice {

void RegisterAllOps(OpRegistry& registry) {
  RegisterBiasAddOp(registry);
  RegisterBinaryOps(registry);
  RegisterCastOp(registry);
  RegisterConcatOp(registry);
  RegisterCrossEntropyOps(registry);
  RegisterDropoutOp(registry);
  RegisterEmbeddingLookupOp(registry);
  RegisterFillOps(registry);
  RegisterMaskedMeanOp(registry);
  RegisterMatMulOp(registry);
  RegisterReduceOps(registry);
  RegisterReshapeOp(registry);
  RegisterSoftmaxOps(registry);
  RegisterUnaryOps(registry);
}

}  // namespace sluice
