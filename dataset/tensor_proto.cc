#include "dataset/tensor_proto.h"

#include "dataset/pipeline_spec.pb.h"

namespace sluice {

void TensorToProto(const Tensor& tensor, spec::TensorProto* out) {
  out->set_dtype(std::string(DTypeName(tensor.dtype())));
  for (int64_t d : tensor.shape().dims()) out->add_shape(d);
  if (tensor.dtype() == DType::kString) {
    const TString* values = tensor.data<TString>();
    for (int64_t i = 0; i < tensor.NumElements(); ++i) out->add_string_values(std::string(values[i]));
    return;
  }
  VisitNumericDType(tensor.dtype(), [&](auto zero) {
    using T = decltype(zero);
    const T* values = tensor.data<T>();
    for (int64_t i = 0; i < tensor.NumElements(); ++i) {
      if (IsFloating(tensor.dtype())) {
        out->add_float_values(ConvertValue<double>(values[i]));
      } else {
        out->add_int_values(ConvertValue<int64_t>(values[i]));
      }
    }
  });
}

Result<Tensor> TensorFromProto(const spec::TensorProto& proto) {
  SLUICE_ASSIGN_OR_RETURN(DType dtype, ParseDType(proto.dtype()));
  const std::vector<int64_t> dims(proto.shape().begin(), proto.shape().end());
  SLUICE_ASSIGN_OR_RETURN(Shape shape, Shape::FromDims(dims));
  const int64_t count = dtype == DType::kString ? proto.string_values_size()
                        : IsFloating(dtype)     ? proto.float_values_size()
                                                : proto.int_values_size();
  if (count != shape.NumElements()) {
    return InvalidArgumentError("tensor constant of shape ", shape, " needs ", shape.NumElements(),
                                " ", dtype, " values but has ", count);
  }
  Tensor tensor = Tensor::Allocate(dtype, shape);
  if (dtype == DType::kString) {
    TString* values = tensor.mutable_data<TString>();
    for (int64_t i = 0; i < count; ++i) values[i] = proto.string_values(static_cast<int>(i));
    return tensor;
  }
  VisitNumericDType(dtype, [&](auto zero) {
    using T = decltype(zero);
    T* values = tensor.mutable_data<T>();
    for (int64_t i = 0; i < count; ++i) {
      const int index = static_cast<int>(i);
      values[i] = IsFloating(dtype) ? ConvertValue<T>(proto.float_values(index))
                                    : ConvertValue<T>(proto.int_values(index));
    }
  });
  return tensor;
}

void NamedTensorToProto(const NamedTensor& tensor, spec::NamedTensor* out) {
  out->set_name(tensor.name);
  TensorToProto(tensor.tensor, out->mutable_tensor());
}

Result<NamedTensor> NamedTensorFromProto(const spec::NamedTensor& proto) {
  SLUICE_ASSIGN_OR_RETURN(Tensor tensor, TensorFromProto(proto.tensor()));
  return NamedTensor{proto.name(), std::move(tensor)};
}

}  // namespace sluice
