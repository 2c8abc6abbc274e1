// The one place every op is registered (ops/op_registry.h).
#include "ops/bias_add.h"
#include "ops/binary_ops.h"
#include "ops/cast.h"
#include "ops/concat.h"
#include "ops/cross_entropy.h"
#include "ops/cuda_kernels.h"
#include "ops/dropout.h"
#include "ops/embedding_lookup.h"
#include "ops/fill.h"
#include "ops/masked_mean.h"
#include "ops/matmul.h"
#include "ops/op_registry.h"
#include "ops/reduce_ops.h"
#include "ops/reshape.h"
#include "ops/softmax.h"
#include "ops/unary_ops.h"

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
  // Last: the CUDA kernels attach to the ops registered above.
  RegisterCudaKernels(registry);
}

}  // namespace sluice
