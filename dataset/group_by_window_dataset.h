// group_by_window: groups elements by an int64 key and reduces each group's
// windows to datasets whose elements it emits (tf.data's
// Dataset.group_by_window). Each input element goes to the group of its
// key; a group that reaches its window size is reduced at once: reduce_fn
// gets the window and the elements of the dataset it returns are emitted
// before more input is read. At the end of the input the groups left are
// reduced in ascending key order (tf.data's order: its groups live in an
// ordered map).
//
// The window reduce_fn receives is one element (as window's,
// dataset/window_dataset.h): the group's elements stacked along a new
// leading dimension, then the key as a last component named `key_name`,
// an int64 column holding the key in every row. A function starting with
// element_source SLICES therefore reads rows that carry their key;
// MakeWindowFunction(body, spec, /*hidden_trailing=*/1)
// (dataset/window_function.h), or Pipeline::GroupByWindow with a body, gives
// the rows without it, as tf.data's `lambda key, rows: rows.batch(n)`.
// Rows of one window must have equal shapes, as window's.
//
// Errors are per element: a key_fn or window_size_fn error, a key of the
// wrong type, or a group that would pass max_open_groups (ResourceExhausted)
// is that input element's error, and the element is dropped; a reduce_fn
// error, or rows that can't be stacked, is the error of that group's window.
// The iterator stays usable. Elements held in groups are charged to the
// traversal's RAM budget; one that would pass it is ResourceExhausted, for
// that element. A saved iterator holds every open group's elements, the
// window being emitted (reduce_fn is called again on it after a restore, so
// it must be deterministic) and the input's position.
#pragma once

#include <optional>
#include <string>

#include "sluice/dataset/dataset.h"
#include "sluice/dataset/functions.h"

namespace sluice {

inline constexpr int64_t kDefaultMaxOpenGroups = 1 << 16;

struct GroupByWindowOptions {
  // The key of an element (tf.data's key_func), exactly one of: key_fn, an
  // element function returning one int64 scalar (a built-in, an expression,
  // a named function or a C++ callable); or key_component, the name (or
  // position "0") of an int64 scalar component.
  ElementFunctionPtr key_fn;
  std::string key_component;
  // The dataset of one window (tf.data's reduce_func); required.
  DatasetFunctionPtr reduce_fn;
  // The elements per window, exactly one of: window_size (> 0), or
  // window_size_fn, an element function of {key_name: int64 scalar}
  // returning one int64 scalar (> 0, else the element's InvalidArgument),
  // called once per group opened.
  std::optional<int64_t> window_size;
  ElementFunctionPtr window_size_fn;
  // The most groups open at once, > 0; an element opening one more is a
  // ResourceExhausted error.
  int64_t max_open_groups = kDefaultMaxOpenGroups;
  // The name of the window's key column; no input component may have it.
  std::string key_name = "key";
};

Result<DatasetPtr> MakeGroupByWindowDataset(DatasetPtr input, GroupByWindowOptions options);

// The spec of the windows reduce_fn receives for elements of `input`: its
// components with a leading window dimension, then the key column.
Result<ElementSpec> GroupWindowSpec(const ElementSpec& input, const std::string& key_name);

// The group_by_window node of a pipeline spec (dataset/op_spec.h).
Result<DatasetPtr> GroupByWindowDatasetFromSpec(const spec::DatasetNode& node, const OpSpecContext& context);

}  // namespace sluice
