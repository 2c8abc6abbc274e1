#include "sluice/model/masked_mean_pooling.h"

#include "sluice/model/model.pb.h"
#include "sluice/ops/masked_mean.h"
#include "sluice/ops/op_checks.h"

namespace sluice {

Result<LayerInput> MaskedMeanPooling::Build(std::span<const LayerInput> inputs, std::mt19937_64&) {
  const LayerInput& values = inputs[0];
  const LayerInput& ids = inputs[1];
  if (values.dtype != DType::kFloat32 || values.shape.rank() != 2 ||
      (ids.dtype != DType::kInt32 && ids.dtype != DType::kInt64) || ids.shape.rank() != 1 ||
      ids.shape.dim(0) != values.shape.dim(0)) {
    return InvalidArgumentError("MaskedMeanPooling '", name(),
                                "' expects float32 vectors [T, D] and int ids [T], got ", values.dtype,
                                values.shape, " and ", ids.dtype, ids.shape);
  }
  return LayerInput{DType::kFloat32, Shape{values.shape.dim(1)}};
}

Result<Tensor> MaskedMeanPooling::Call(std::span<const Tensor> inputs, bool) {
  const Tensor& ids = inputs[1];
  // The mask is data, not a function of weights: no gradient flows into it.
  Tensor mask = Tensor::AllocateUninitialized(DType::kFloat32, ids.shape());
  float* m = mask.mutable_data<float>();
  for (int64_t i = 0; i < ids.NumElements(); ++i) m[i] = IndexAt(ids, i) != 0 ? 1.0f : 0.0f;
  return MaskedMean(inputs[0], mask);
}

void MaskedMeanPooling::ToConfig(model::LayerConfig* config) const {
  config->set_name(name());
  config->mutable_masked_mean_pooling();
}

}  // namespace sluice
