// flat_map: maps each input element to a dataset and emits the elements of
// those datasets one after another, in input order (tf.data's
// Dataset.flat_map). It is interleave with cycle_length 1 and block_length 1
// underneath (dataset/interleave_dataset.h): the same iterator, errors and
// checkpoints, under its own name and spec node. A function's error for one
// input element is that element's error; the iterator goes on with the next.
//
// Its usual input is window's (dataset/window_dataset.h): a window is one
// element of stacked rows, and a function that starts from the window's
// rows (MakeWindowFunction, dataset/window_function.h) gives each window's
// dataset, as tf.data's `ds.window(3).flat_map(lambda w: w.batch(3))`.
//
// A saved iterator holds the input element whose dataset is being read and
// that dataset's position; a restore calls the function again on that
// element, so it must be deterministic.
#pragma once

#include "sluice/dataset/dataset.h"
#include "sluice/dataset/functions.h"

namespace sluice {

// `fn` maps an input element to the dataset whose elements it stands for.
Result<DatasetPtr> MakeFlatMapDataset(DatasetPtr input, DatasetFunctionPtr fn);

// The flat_map node of a pipeline spec (dataset/op_spec.h).
Result<DatasetPtr> FlatMapDatasetFromSpec(const spec::DatasetNode& node, const OpSpecContext& context);

}  // namespace sluice
