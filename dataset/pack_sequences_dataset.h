// pack_sequences: first-fit packing of variable-length sequences into rows
// of a fixed length, for language-model training, as Google Grain's packers
// do (tf.data has no such op). Every component of the input is a 1-D
// numeric sequence; each output element is one packed row holding, for each
// input component C (by its name, or its position "0", "1", ...):
//   C              sequence_lengths[C] values: the packed sequences, then 0s;
//   C_segment_ids  int32: the 1-based index in the row of the element each
//                  value came from, 0 for padding;
//   C_positions    int32: each value's position within its element, 0 for
//                  padding.
// Rows come out one at a time, as Grain emits them; batch them after.
//
// Up to max_open_rows rows are open at once. Each element goes into the
// first open row with room for all of its components (first fit); when none
// has room, an element that fills a whole row is emitted as that row, ahead
// of the open ones; otherwise, when max_open_rows are open, the fullest row
// (the most values; the first opened among equals) is emitted and a row
// opens for the element. A row with no room left in any component is
// emitted before the next element is read; at the end of the input the open rows are emitted in the
// order they were opened. The output depends only on the input's order.
// Where it differs from Grain's FirstFitPackIterDataset: Grain emits all its
// bins when an element fits none, here only the fullest row leaves and the
// others go on filling.
//
// A sequence longer than its row is cut to the row's length (the first
// values kept), or, without truncate_long_sequences, an InvalidArgument
// error for that element. An element whose components are all empty adds
// nothing and is skipped. An input error is returned at once; the open rows
// are kept.
//
// Open rows are charged to the traversal's RAM budget as they open: a row
// that would pass it is ResourceExhausted for the element that needed it.
// A saved iterator holds the open rows and the input's position.
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

#include "sluice/dataset/dataset.h"

namespace sluice {

inline constexpr int64_t kMaxOpenRows = 4096;
// Positions and segment ids are int32.
inline constexpr int64_t kMaxPackedSequenceLength = std::numeric_limits<int32_t>::max();

struct PackSequencesOptions {
  // The row length of each component, in [1, kMaxPackedSequenceLength]: one
  // per component, or one for all (required).
  std::vector<int64_t> sequence_lengths;
  // Rows open at once, in [1, kMaxOpenRows] (Grain's num_packing_bins).
  int64_t max_open_rows = 8;
  // Cut a sequence longer than its row; false: InvalidArgument for it.
  bool truncate_long_sequences = true;
};

Result<DatasetPtr> MakePackSequencesDataset(DatasetPtr input, PackSequencesOptions options);

// The pack_sequences node of a pipeline spec (dataset/op_spec.h).
Result<DatasetPtr> PackSequencesDatasetFromSpec(const spec::DatasetNode& node, const OpSpecContext& context);

}  // namespace sluice
