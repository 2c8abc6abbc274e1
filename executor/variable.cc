#include "sluice/executor/variable.h"

#include <atomic>

#include "sluice/executor/device_copy.h"

namespace sluice {

uint64_t NewTapeId() {
  static std::atomic<uint64_t> next{1};
  return next.fetch_add(1, std::memory_order_relaxed);
}

Variable::Variable(std::string name, const Tensor& initial_value, bool trainable)
    : name_(std::move(name)), value_(DeepCopy(initial_value).value()), trainable_(trainable) {
  value_.set_tape_id(NewTapeId());
}

Status Variable::Assign(const Tensor& value) {
  if (value.dtype() != value_.dtype() || value.shape() != value_.shape()) {
    return InvalidArgumentError("variable '", name_, "' is ", value_.dtype(), value_.shape(),
                                " but the assigned value is ", value.dtype(), value.shape());
  }
  if (value_.dtype() == DType::kString) {
    for (int64_t i = 0; i < value.NumElements(); ++i) {
      value_.mutable_data<TString>()[i] = value.data<TString>()[i];
    }
    return OkStatus();
  }
  return CopyInto(value, value_);
}

}  // namespace sluice
