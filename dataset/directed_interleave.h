// The iterator that choose_from_datasets and sample_from_datasets share
// (tf.data's DirectedInterleave): each element of a selector picks the
// dataset whose next element comes next.
//
// A selected dataset that is exhausted ends the sequence when
// stop_on_empty_dataset; otherwise it is dropped, and later selections of
// it are skipped. The sequence also ends with the selector, or once every
// dataset is exhausted. An index outside [0, datasets) is an
// InvalidArgument error for that selection, and errors from the selector,
// from index_of and from the datasets are their element's errors.
// A saved iterator holds whether it ended, the selector's position and
// each dataset's (or that it is exhausted).
// Thread safety: an Iterator, used by one thread at a time.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "sluice/dataset/dataset.h"

namespace sluice {

struct DirectedInterleave {
  std::string op;  // the op's name, for errors
  DatasetPtr selector;
  std::vector<DatasetPtr> datasets;
  // The index of the dataset a selector element picks.
  std::function<Result<int64_t>(const Element& selection)> index_of;
  bool stop_on_empty_dataset = true;
};

// The traversal's iterator for an op with these inputs; they are made with
// `ctx` (the op's context, so they profile under its node).
std::unique_ptr<Iterator> MakeDirectedInterleaveIterator(DirectedInterleave interleave, const IteratorContext& ctx);

// The cardinality of such an op: the selector's when every dataset is
// infinite (each selection then gives an element), 0 when the selector is
// empty, else unknown.
int64_t DirectedInterleaveCardinality(const Dataset& selector, const std::vector<DatasetPtr>& datasets);

}  // namespace sluice
