// bucket_by_sequence_length: batches elements of similar length together,
// to cut the padding of variable-length data (tf.data's
// Dataset.bucket_by_sequence_length). Bucket i holds the lengths
// [bucket_boundaries[i-1], bucket_boundaries[i]), the first starting at the
// int32 minimum and the last ending below the int32 maximum; a bucket that
// reaches bucket_batch_sizes[i] elements is emitted at once as a batch,
// padded as padded_batch pads (dataset/padded_batch_dataset.h), or stacked
// as batch does with no_padding. At the end of the input the partly filled
// buckets are emitted in ascending bucket order, or dropped with
// drop_remainder (tf.data's group_by_window keyed by bucket, which this
// reproduces).
//
// pad_to_bucket_boundary pads every unknown dim of a batch of bucket i to
// bucket_boundaries[i] - 1; an element of the last bucket is then an
// InvalidArgument error for that element (tf.data fails when that bucket is
// emitted). A length outside the buckets (the int32 maximum or above) is an
// InvalidArgument error for that element, and so is a length_fn error; the
// iterator stays usable.
//
// The elements held in buckets are charged to the traversal's RAM budget:
// one that would pass it is ResourceExhausted, for that element. A saved
// iterator holds every bucket's elements and the input's position.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "sluice/dataset/dataset.h"
#include "sluice/dataset/expression.h"

namespace sluice {

struct BucketBySequenceLengthOptions {
  // The element's length, which picks its bucket (tf.data's
  // element_length_func): the size along axis 0 of `length_component` (a
  // name, or a position "0"; empty: the only component), which a spec can
  // hold; or, when set, `length_expression`, an integer scalar expression
  // (dataset/expression.h), which a spec can hold too; or, when set,
  // `length_fn`, a C++ callable, which keeps the graph in-process (writing
  // it as a spec is Unimplemented). Set at most one of the three.
  std::string length_component;
  std::optional<Expr> length_expression;
  std::function<Result<int64_t>(const Element&)> length_fn;
  // Strictly increasing, within int32; may be empty (one bucket).
  std::vector<int64_t> bucket_boundaries;
  // One per bucket (bucket_boundaries.size() + 1), each > 0.
  std::vector<int64_t> bucket_batch_sizes;
  // As padded_batch's; empty: the input's shapes (unknown dims pad to the
  // batch maximum, or to the bucket boundary with pad_to_bucket_boundary).
  std::vector<PartialShape> padded_shapes;
  std::vector<Tensor> padding_values;  // as padded_batch's (default 0 / "")
  bool pad_to_bucket_boundary = false;
  // Stack the elements unpadded (they must have equal shapes per batch);
  // padded_shapes, padding_values and pad_to_bucket_boundary must be unset.
  bool no_padding = false;
  bool drop_remainder = false;  // drop the partly filled buckets at the end
};

Result<DatasetPtr> MakeBucketBySequenceLengthDataset(DatasetPtr input, BucketBySequenceLengthOptions options);

// The bucket_by_sequence_length node of a pipeline spec (dataset/op_spec.h).
Result<DatasetPtr> BucketBySequenceLengthDatasetFromSpec(const spec::DatasetNode& node,
                                                         const OpSpecContext& context);

}  // namespace sluice
