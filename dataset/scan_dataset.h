// scan: carries a state through the input (tf.data's Dataset.scan): for
// each element, fn maps (state, element) to (new state, output element).
// fn is an ElementFunction applied to one element whose components are the
// state's, then the input element's (names as given; they must not clash),
// and returns the new state's components first, then the output's: a
// built-in function in specs (e.g. select, to emit the state and keep the
// element as the next state), or a C++ callable in the builder. The new
// state must have the initial state's dtypes and shapes (checked on the
// function's output spec when the op is built, and on each new state), and
// at least one output component must follow it.
// An error from the input or from fn is that element's error; the state is
// not advanced by it. Cardinality is the input's.
// A saved iterator holds the state and the input's position.
#pragma once

#include <vector>

#include "sluice/dataset/dataset.h"
#include "sluice/dataset/from_slices_dataset.h"
#include "sluice/dataset/functions.h"

namespace sluice {

struct ScanOptions {
  // The state before the first element: at least one component.
  std::vector<NamedTensor> initial_state;
};

Result<DatasetPtr> MakeScanDataset(DatasetPtr input, ElementFunctionPtr fn, ScanOptions options);

// The scan node of a pipeline spec (dataset/op_spec.h).
Result<DatasetPtr> ScanDatasetFromSpec(const spec::DatasetNode& node, const OpSpecContext& context);

}  // namespace sluice
