// window: groups the input's elements into windows (tf.data's
// Dataset.window). Window k starts at input element k * shift and holds the
// elements k * shift + i * stride for i in [0, size) that exist: the last
// windows are shorter unless drop_remainder, which drops every window of
// fewer than `size` elements.
//
// How a window is represented: tf.data's window is a dataset of datasets;
// a Sluice element is a flat list of tensors, so a window is one element
// whose components hold the window's rows stacked along a new leading
// dimension (its length is the window's, known in the spec only with
// drop_remainder). A dataset function that starts from the window's rows
// (element_source SLICES, or MakeWindowFunction in
// dataset/window_function.h) turns it back into a dataset, so that flat_map
// and interleave consume windows as tf.data's do:
//   Pipeline::Range(7).Window({.size = 3, .shift = 1, .drop_remainder = true})
//       .FlatMapWindows([](Pipeline rows) { return rows.Batch({.batch_size = 3}); })
// gives [0 1 2], [1 2 3], [2 3 4], [3 4 5], [4 5 6].
// Differs from tf.data: the rows of one window must have equal shapes (a
// window of rows whose shapes differ, such as ragged 1-D rows, is an
// InvalidArgument error for that window, with batch's message; strings of
// any lengths are fine).
//
// Errors: an input error inside a window makes that window the error (the
// first one among its elements), and the windows after it go on, as in
// tf.data; errors of the elements a shift larger than the window skips are
// dropped. The buffered elements are charged to the traversal's RAM budget:
// an element that would pass it is buffered as a ResourceExhausted error in
// its place, and the window being filled is that error (the next one starts
// a shift later, and holds the error too where it covers that element).
// A saved iterator holds the buffered elements (and errors) and the input's
// position.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "sluice/dataset/dataset.h"

namespace sluice {

struct WindowOptions {
  int64_t size = 0;              // > 0: the elements per window
  std::optional<int64_t> shift;  // > 0: input elements between window starts; unset: size
  int64_t stride = 1;            // > 0: input elements between a window's rows
  bool drop_remainder = false;   // drop the windows shorter than size
};

Result<DatasetPtr> MakeWindowDataset(DatasetPtr input, WindowOptions options);

// The window node of a pipeline spec (dataset/op_spec.h).
Result<DatasetPtr> WindowDatasetFromSpec(const spec::DatasetNode& node, const OpSpecContext& context);

// What window and group_by_window share. The spec of a window of `rows`
// elements of `input` (kUnknownDim: any number): each component with that
// leading dimension; InvalidArgument naming `op` where a component has no
// room for one more dimension.
Result<ElementSpec> WindowSpec(std::string_view op, const ElementSpec& input, int64_t rows);
// `rows` (at least one, of one spec) as one window element, each component
// stacked in a tensor allocated within `max_bytes`; rows whose shapes differ
// are InvalidArgument. Errors start with `op`.
Result<Element> StackWindow(std::string_view op, const std::vector<Element>& rows, int64_t max_bytes);

}  // namespace sluice
