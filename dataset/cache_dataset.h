// cache (in memory): the first iterator that reads the input to its end
// stores every element; later iterators replay them without touching the
// input. A partial pass is discarded (with tf.data's warning), so
// cache().take(k).repeat() never truncates the data. Errors are not cached.
// What is cached is Unpinned (core/element.h): records that view their read
// chunks are copied out when they alone would keep much more alive.
// Its iterators can't be saved (dataset/iterator_state.h): Unimplemented.
#pragma once

#include "dataset/dataset.h"

namespace sluice {

Result<DatasetPtr> MakeCacheDataset(DatasetPtr input);

}  // namespace sluice
