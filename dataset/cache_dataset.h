// cache (in memory): the first iterator that reads the input to its end
// stores every element; later iterators replay them without touching the
// input. A partial pass is discarded (with tf.data's warning), so
// cache().take(k).repeat() never truncates the data. Errors are not cached.
// What is cached is Unpinned (core/element.h): records that view their read
// chunks are copied out when they alone would keep much more alive.
// A pass whose elements would take more than the traversal's RAM budget
// (dataset/ram_budget.h, HeldBytes) stops keeping them, with a warning, and
// reads through uncached: the next pass reads the input again, so an endless
// or huge input never grows the cache without bound.
// Its iterators can't be saved (dataset/iterator_state.h): Unimplemented.
#pragma once

#include "sluice/dataset/dataset.h"

namespace sluice {

Result<DatasetPtr> MakeCacheDataset(DatasetPtr input);

// The cache node of a pipeline spec (dataset/op_spec.h).
Result<DatasetPtr> CacheDatasetFromSpec(const spec::DatasetNode& node, const OpSpecContext& context);

}  // namespace sluice
