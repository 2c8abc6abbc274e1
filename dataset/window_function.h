// Dataset functions over windows (dataset/window_dataset.h), the shorthand
// for tf.data's `lambda w: w.batch(3)`: `body` builds one window's dataset
// from a pipeline of the window's rows, and never sees how the window is
// stored (one element of stacked rows, unbatched by the function).
//
//   Pipeline::Range(7).Window({.size = 3, .shift = 1, .drop_remainder = true})
//       .FlatMap(MakeWindowFunction([](Pipeline rows) { return rows.Batch({.batch_size = 3}); }, window_spec))
//
// (Pipeline::FlatMapWindows says the same without the spec.) When body uses
// only built-in ops, the function is a spec function, element_source SLICES
// followed by body's ops, and serializes with the graph; when it holds a C++
// callable, it runs in-process only (writing it is Unimplemented, naming the
// callable's op), each window's rows becoming a from_slices pipeline.
// Thread safety: the function is immutable; body is called when the
// function is made, and for a callable body once per window, possibly from
// several threads.
#pragma once

#include <functional>

#include "sluice/dataset/functions.h"

namespace sluice {

class Pipeline;

using WindowBody = std::function<Pipeline(Pipeline rows)>;

// The function of windows of `window_spec` (each component with a leading
// window dimension). `hidden_trailing`: the window's last components that
// the rows leave out (group_by_window's key column).
Result<DatasetFunctionPtr> MakeWindowFunction(const WindowBody& body, const ElementSpec& window_spec,
                                              size_t hidden_trailing = 0);

}  // namespace sluice
