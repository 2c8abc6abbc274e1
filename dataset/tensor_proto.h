// Conversion between Tensors and spec::TensorProto (constants in pipeline
// specs), and between ElementSpecs and NamedTensor lists.
// Thread safety: pure functions.
#pragma once

#include <google/protobuf/repeated_ptr_field.h>

#include "sluice/core/tensor.h"
#include "sluice/dataset/from_slices_dataset.h"

namespace sluice {

namespace spec {
class TensorProto;
class NamedTensor;
}  // namespace spec

void TensorToProto(const Tensor& tensor, spec::TensorProto* out);
// InvalidArgument when the dtype is unknown, the shape is invalid, the
// value count does not match the shape (naming what each field holds), or a
// value does not fit the dtype (an integer outside its range, a finite
// float that would become infinite): never truncated.
Result<Tensor> TensorFromProto(const spec::TensorProto& proto);

void NamedTensorToProto(const NamedTensor& tensor, spec::NamedTensor* out);
Result<NamedTensor> NamedTensorFromProto(const spec::NamedTensor& proto);
// A list of them (a from_slices node's components, a scan's initial_state);
// errors name the failing entry of `field` ("components[2]: ...").
Result<std::vector<NamedTensor>> NamedTensorsFromProto(
    const google::protobuf::RepeatedPtrField<spec::NamedTensor>& protos, std::string_view field);

}  // namespace sluice
