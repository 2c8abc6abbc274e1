// sparse_batch: batches elements of differing shapes as one sparse tensor
// per batch (tf.data's sparse_batch, formerly dense_to_sparse_batch), for
// rows of varying length that a model reads as sparse features.
//
// The input has one component, of the rank of `row_shape`. Each batch of up
// to `batch_size` elements (the last may be smaller) gives three components,
// tf.sparse.SparseTensor's parts:
//   <name>               values, [nnz]: every value of each element, element
//                        after element, each in row-major order
//   <name>/indices       int64 [nnz, rank + 1]: each value's index, the
//                        element's position in the batch first
//   <name>/dense_shape   int64 [rank + 1]: the batch's size, then row_shape,
//                        a -1 there being that dim's largest size in the batch
// where <name> is the input component's name ("0" when positional, which
// the values keep). An element of another rank, or larger than row_shape in
// a known dim, makes its batch an InvalidArgument error with tf.data's
// message ("Input element had shape ([7]) that is larger than the row shape
// ([6])."; TensorFlow's code for that one is DataLoss).
//
// Sizes are checked: rows are charged against the traversal's RAM budget as
// they are gathered and the outputs as they are allocated (ResourceExhausted
// for that batch). An input error is returned at once and the rows gathered
// are dropped.
#pragma once

#include <vector>

#include "sluice/dataset/dataset.h"

namespace sluice {

struct SparseBatchOptions {
  int64_t batch_size = 0;          // > 0
  std::vector<int64_t> row_shape;  // each dim >= 0, or -1: the batch's largest
};

Result<DatasetPtr> MakeSparseBatchDataset(DatasetPtr input, SparseBatchOptions options);

// The sparse_batch node of a pipeline spec (dataset/op_spec.h).
Result<DatasetPtr> SparseBatchDatasetFromSpec(const spec::DatasetNode& node, const OpSpecContext& context);

}  // namespace sluice
