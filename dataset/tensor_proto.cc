#include "sluice/dataset/tensor_proto.h"

#include <cmath>
#include <string>

#include "sluice/dataset/pipeline_spec.pb.h"

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

namespace {

// InvalidArgument unless `value`, given in `field`[`index`] for a tensor
// constant of `shape` and dtype T, is one T holds: integers within T's
// range (bool: 0 or 1), finite floats within T's finite range.
template <typename T, typename V>
Status CheckRepresentable(V value, const Shape& shape, std::string_view field, int64_t index) {
  const auto where = [&] { return StrCat("tensor constant ", DTypeOf<T>::value, shape, ": ", field, "[", index, "] = ", value); };
  if constexpr (std::is_integral_v<T>) {
    const IntegerBounds bounds = IntegerBoundsOf(DTypeOf<T>::value);
    if (!bounds.Contains(static_cast<int64_t>(value))) {
      return InvalidArgumentError(where(), " is out of range for ", DTypeOf<T>::value, " [", bounds.min, ", ",
                                  bounds.max, "]");
    }
  } else if (std::isfinite(value) && !std::isfinite(ConvertValue<double>(ConvertValue<T>(value)))) {
    return InvalidArgumentError(where(), " is out of range for ", DTypeOf<T>::value, " (it would become infinite)");
  }
  return OkStatus();
}

}  // namespace

Result<Tensor> TensorFromProto(const spec::TensorProto& proto) {
  SLUICE_ASSIGN_OR_RETURN(DType dtype, ParseDType(proto.dtype()));
  const std::vector<int64_t> dims(proto.shape().begin(), proto.shape().end());
  SLUICE_ASSIGN_OR_RETURN(Shape shape, Shape::FromDims(dims));
  SLUICE_ASSIGN_OR_RETURN(const int64_t needed, shape.CheckedNumElements());
  const std::string_view field = dtype == DType::kString ? "string_values"
                                 : IsFloating(dtype)     ? "float_values"
                                                         : "int_values";
  const int64_t count = dtype == DType::kString ? proto.string_values_size()
                        : IsFloating(dtype)     ? proto.float_values_size()
                                                : proto.int_values_size();
  if (count != needed) {
    return InvalidArgumentError("tensor constant ", dtype, shape, " needs ", needed, " values in ", field,
                                " but was given ", proto.int_values_size(), " int_values, ",
                                proto.float_values_size(), " float_values and ", proto.string_values_size(),
                                " string_values");
  }
  // The count matches values present in the proto: the allocation is bounded.
  Tensor tensor = Tensor::Allocate(dtype, shape);
  if (dtype == DType::kString) {
    TString* values = tensor.mutable_data<TString>();
    for (int64_t i = 0; i < count; ++i) values[i] = proto.string_values(static_cast<int>(i));
    return tensor;
  }
  Status status;
  VisitNumericDType(dtype, [&](auto zero) {
    using T = decltype(zero);
    T* values = tensor.mutable_data<T>();
    for (int64_t i = 0; i < count && status.ok(); ++i) {
      const int index = static_cast<int>(i);
      if (IsFloating(dtype)) {
        status = CheckRepresentable<T>(proto.float_values(index), shape, field, i);
        values[i] = ConvertValue<T>(proto.float_values(index));
      } else {
        status = CheckRepresentable<T>(proto.int_values(index), shape, field, i);
        values[i] = ConvertValue<T>(proto.int_values(index));
      }
    }
  });
  SLUICE_RETURN_IF_ERROR(status);
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

Result<std::vector<NamedTensor>> NamedTensorsFromProto(
    const google::protobuf::RepeatedPtrField<spec::NamedTensor>& protos, std::string_view field) {
  std::vector<NamedTensor> components;
  for (int i = 0; i < protos.size(); ++i) {
    Result<NamedTensor> component = NamedTensorFromProto(protos[i]);
    if (!component.ok()) return component.status().WithContext(StrCat(field, "[", i, "]"));
    components.push_back(*std::move(component));
  }
  return components;
}

}  // namespace sluice
