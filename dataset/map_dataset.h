// map: applies an ElementFunction to every element, in order (sequential for
// now). A failure on one element is that element's error; the iterator goes
// on with the next. OutOfRange from the function becomes InvalidArgument, as
// in tf.data, so it cannot be mistaken for the end of the sequence.
// The function is not part of a saved iterator (dataset/iterator_state.h):
// it is assumed stateless, a C++ lambda included.
#pragma once

#include "dataset/dataset.h"
#include "dataset/functions.h"

namespace sluice {

Result<DatasetPtr> MakeMapDataset(DatasetPtr input, ElementFunctionPtr fn);

}  // namespace sluice
