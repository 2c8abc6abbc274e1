#include "sluice/executor/gradient_buckets.h"

#include <cstring>

namespace sluice {

GradientBuckets::GradientBuckets(std::span<Variable* const> variables, Collectives& collectives,
                                 GradientBucketsOptions options)
    : collectives_(collectives), slots_(variables.size()), reported_(variables.size(), false) {
  std::vector<int64_t> elements;  // per bucket
  int64_t bytes = 0;              // of the bucket being filled
  for (size_t i = variables.size(); i-- > 0;) {
    const Tensor& value = variables[i]->value();
    const int64_t size = static_cast<int64_t>(value.NumBytes());
    const bool fits = !buckets_.empty() && slots_[buckets_.back().variables.front()].dtype == value.dtype() &&
                      bytes + size <= options.bucket_bytes;
    if (!fits) {
      buckets_.emplace_back();
      elements.push_back(0);
      bytes = 0;
    }
    slots_[i] = Slot{.bucket = buckets_.size() - 1, .offset = elements.back(), .dtype = value.dtype(),
                     .shape = value.shape(), .name = variables[i]->name()};
    buckets_.back().variables.push_back(i);
    elements.back() += value.NumElements();
    bytes += size;
  }
  for (size_t b = 0; b < buckets_.size(); ++b) {
    buckets_[b].flat = Tensor::Allocate(slots_[buckets_[b].variables.front()].dtype, Shape{elements[b]});
  }
  BeginStep();
}

void GradientBuckets::BeginStep() {
  for (Bucket& bucket : buckets_) {
    // A step that failed half-way may have left one running.
    if (bucket.pending) (void)bucket.pending->Wait();
    bucket.pending.reset();
    bucket.missing = bucket.variables.size();
  }
  std::fill(reported_.begin(), reported_.end(), false);
  next_to_start_ = 0;
}

Status GradientBuckets::OnGradientReady(size_t index, const Tensor& gradient) {
  if (index >= slots_.size()) {
    return InvalidArgumentError("a gradient of variable ", index, "; there are ", slots_.size());
  }
  const Slot& slot = slots_[index];
  if (gradient.dtype() != slot.dtype || gradient.shape() != slot.shape) {
    return InvalidArgumentError("the gradient of '", slot.name, "' is ", gradient.dtype(), gradient.shape(),
                                "; the variable is ", slot.dtype, slot.shape);
  }
  if (reported_[index]) return InternalError("the gradient of '", slot.name, "' was reported twice in one step");
  reported_[index] = true;
  Bucket& bucket = buckets_[slot.bucket];
  std::memcpy(static_cast<char*>(bucket.flat.raw_data()) + slot.offset * DTypeSize(slot.dtype), gradient.raw_data(),
              gradient.NumBytes());
  --bucket.missing;
  SLUICE_RETURN_IF_ERROR(StartDue());
  // Lets the transport move the started buckets' bytes meanwhile.
  for (size_t b = 0; b < next_to_start_; ++b) {
    if (buckets_[b].pending) SLUICE_RETURN_IF_ERROR(buckets_[b].pending->Test().status());
  }
  return OkStatus();
}

Status GradientBuckets::StartDue() {
  while (next_to_start_ < buckets_.size() && buckets_[next_to_start_].missing == 0) {
    Bucket& bucket = buckets_[next_to_start_];
    SLUICE_ASSIGN_OR_RETURN(bucket.pending, collectives_.StartAllReduce(bucket.flat, ReduceOp::kMean));
    ++next_to_start_;
  }
  return OkStatus();
}

Result<std::vector<Tensor>> GradientBuckets::Finish() {
  for (size_t i = 0; i < slots_.size(); ++i) {
    if (!reported_[i]) return InternalError("the gradient of '", slots_[i].name, "' was not reported this step");
  }
  const auto start = std::chrono::steady_clock::now();
  for (Bucket& bucket : buckets_) {
    if (bucket.pending) SLUICE_RETURN_IF_ERROR(bucket.pending->Wait());
    bucket.pending.reset();
  }
  wait_time_ += std::chrono::steady_clock::now() - start;
  std::vector<Tensor> averaged;
  averaged.reserve(slots_.size());
  for (const Slot& slot : slots_) {
    const Tensor& flat = buckets_[slot.bucket].flat;
    SLUICE_ASSIGN_OR_RETURN(averaged.emplace_back(),
                            flat.Slice(slot.offset, slot.offset + slot.shape.NumElements()).Reshaped(slot.shape));
  }
  return averaged;
}

}  // namespace sluice
