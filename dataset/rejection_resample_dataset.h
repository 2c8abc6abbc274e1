// rejection_resample: drops elements at random so that the classes of those
// kept follow a target distribution (tf.data's rejection_resample), for
// training on a class-imbalanced source without a sampler in the trainer.
//
// Each element's class c, an int32 or int64 scalar in [0, K) from class_fn
// or the component class_component, is kept with probability
//   a_c = (t_c / p_c) / max_j (t_j / p_j)
// where t is target_dist and p the input's class distribution: initial_dist
// when given (both normalized to sum 1), else estimated from the classes
// seen so far, each class's count starting at 10 and the element's own
// class counted before it is judged (tf.data's estimate, element by
// element instead of in runs of 32). The kept elements' classes then follow
// t, and the op reads max_j (t_j / p_j) input elements per output on
// average: what tf.data's mixture of the input with a filtered copy of it
// reads, but in one pass, so no element is output twice.
//
// The output is the class (component "class", class_fn's dtype or the
// component's) followed by the element's components, as tf.data's
// (class, element) pairs. An element whose class is outside [0, K), or
// whose class_fn fails, is that element's error. Each traversal draws anew
// (from the seed, or a random one when unset, and its iterator count), so
// the epochs of a repeat after it keep different elements; a saved
// iterator keeps its draws and its class counts.
//
// Sizes: at most 2^20 classes. Weights must be finite and >= 0 with a
// positive sum; a class that target_dist wants and initial_dist says never
// comes is InvalidArgument (nothing could ever be kept for it).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "sluice/dataset/dataset.h"
#include "sluice/dataset/functions.h"

namespace sluice {

struct RejectionResampleOptions {
  // The element's class: exactly one of these.
  ElementFunctionPtr class_fn;       // returns one int32 or int64 scalar
  std::string class_component;       // an int32 or int64 scalar component
  std::vector<double> target_dist;   // one weight per class
  std::vector<double> initial_dist;  // empty: estimated; else one per class
  std::optional<uint64_t> seed;      // unset: a random seed
};

// The most classes target_dist may have.
inline constexpr int64_t kMaxResampleClasses = int64_t{1} << 20;

Result<DatasetPtr> MakeRejectionResampleDataset(DatasetPtr input, RejectionResampleOptions options);

// The rejection_resample node of a pipeline spec (dataset/op_spec.h).
Result<DatasetPtr> RejectionResampleDatasetFromSpec(const spec::DatasetNode& node, const OpSpecContext& context);

}  // namespace sluice
