// GradientBuckets: data-parallel gradient averaging in buckets, as PyTorch
// DDP's Reducer does it. The variables are grouped, in reverse order (the
// order a backward pass finishes their gradients), into buckets of at most
// `bucket_bytes` each (a larger variable is a bucket alone; a bucket holds
// one dtype). Each gradient is copied into its bucket's flat buffer as soon
// as it is final (GradientTape's on_ready); a bucket whose gradients are all
// in starts its all-reduce (mean) at once, while the backward pass goes on,
// and Finish waits for the rest.
//
//   GradientBuckets buckets(variables, collectives, {});
//   buckets.BeginStep();
//   tape.Gradient(loss, variables, kError, [&](size_t i, const Tensor& g) {
//     return buckets.OnGradientReady(i, g); });
//   SLUICE_ASSIGN_OR_RETURN(std::vector<Tensor> averaged, buckets.Finish());
//
// Buckets start in bucket order on every rank (a bucket waits for the ones
// before it), so that every rank issues the same collectives in the same
// order. Finish's tensors view the buckets' buffers: valid until the next
// BeginStep.
// Thread safety: one thread, the one that makes the collectives' calls.
#pragma once

#include <chrono>
#include <memory>
#include <span>
#include <vector>

#include "sluice/executor/collectives.h"
#include "sluice/executor/variable.h"

namespace sluice {

struct GradientBucketsOptions {
  // The most bytes of gradients per bucket (PyTorch DDP's bucket_cap_mb is
  // 25 MiB; smaller buckets start earlier on a CPU's shorter backward pass).
  int64_t bucket_bytes = int64_t{2} << 20;
};

class GradientBuckets {
 public:
  // The buckets of `variables`' gradients (their dtypes and shapes at this call).
  GradientBuckets(std::span<Variable* const> variables, Collectives& collectives, GradientBucketsOptions options);

  // Starts a step: every gradient is expected again.
  void BeginStep();
  // Variable `index`'s final gradient; starts the all-reduces that are due.
  // InvalidArgument when its dtype or shape is not the variable's.
  Status OnGradientReady(size_t index, const Tensor& gradient);
  // Waits for every bucket's all-reduce; the averaged gradients, one per
  // variable. Internal when a gradient was never reported.
  Result<std::vector<Tensor>> Finish();

  size_t bucket_count() const { return buckets_.size(); }
  // The time Finish spent waiting for all-reduces since construction: the
  // communication the backward pass did not hide.
  std::chrono::steady_clock::duration wait_time() const { return wait_time_; }

 private:
  struct Bucket {
    std::vector<size_t> variables;  // indices into the variables
    Tensor flat;                    // every gradient of the bucket, back to back
    size_t missing = 0;             // gradients not yet reported this step
    std::unique_ptr<PendingAllReduce> pending;
  };
  struct Slot {
    size_t bucket = 0;
    int64_t offset = 0;  // in elements, into the bucket's flat buffer
    DType dtype = DType::kFloat32;
    Shape shape;
    std::string name;
  };
  // Starts every bucket whose gradients are all in, in order.
  Status StartDue();

  Collectives& collectives_;
  std::vector<Slot> slots_;  // one per variable
  std::vector<Bucket> buckets_;
  std::vector<bool> reported_;
  size_t next_to_start_ = 0;
  std::chrono::steady_clock::duration wait_time_{};
};

}  // namespace sluice
