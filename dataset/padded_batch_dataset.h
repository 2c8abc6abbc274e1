// padded_batch: like batch, but components may differ in shape: each is
// padded to padded_shapes (a fixed dim pads to that size; -1 pads to the
// largest in the batch) with padding_values (default 0 / empty string).
// An element larger than a fixed padded dim is a DataLoss error, as tf.data.
// Sizes are checked: a padded shape whose fixed dims overflow int64 bytes
// is InvalidArgument when the dataset is made; a batch whose size
// overflows is InvalidArgument, and one that can't fit in the traversal's
// RAM budget (its rows as they are gathered, or the padded batch) is
// ResourceExhausted, for that batch.
#pragma once

#include <functional>
#include <optional>
#include <string_view>
#include <vector>

#include "sluice/dataset/dataset.h"

namespace google::protobuf {
template <typename Element>
class RepeatedPtrField;
}  // namespace google::protobuf

namespace sluice {

namespace spec {
class PaddedShape;
class TensorProto;
}  // namespace spec

struct PaddedBatchOptions {
  int64_t batch_size = 0;  // > 0
  // One per component; empty: every dim of every component pads to the batch
  // maximum (requires known ranks).
  std::vector<PartialShape> padded_shapes;
  // Scalars: one per component, or one for all, or none (0 / "").
  std::vector<Tensor> padding_values;
  bool drop_remainder = false;
};

Result<DatasetPtr> MakePaddedBatchDataset(DatasetPtr input, PaddedBatchOptions options);

// The padded_batch node of a pipeline spec (dataset/op_spec.h).
Result<DatasetPtr> PaddedBatchDatasetFromSpec(const spec::DatasetNode& node, const OpSpecContext& context);

// The padding that padded_batch and bucket_by_sequence_length share.
// ResolvePadding fills in the defaults of `padded_shapes` (every dim to the
// batch maximum) and `padding_values` (0 or "", one value spread to every
// component) and checks them against `spec`; PadBatch pads and stacks
// `rows` (elements of `spec`) with them, a tensor per component allocated
// within `max_bytes`: a row of another rank is InvalidArgument, one larger
// than a fixed dim DataLoss. Errors start with `op`.
Status ResolvePadding(std::string_view op, const ElementSpec& spec, std::vector<PartialShape>& padded_shapes,
                      std::vector<Tensor>& padding_values);
// The padded_shapes and padding_values fields of a spec message (dims
// >= 0, or -1 for the batch maximum), appended to the options' vectors;
// errors name the field ("padded_shapes[0]").
Status PaddingFromSpec(const google::protobuf::RepeatedPtrField<spec::PaddedShape>& shapes,
                       const google::protobuf::RepeatedPtrField<spec::TensorProto>& values,
                       std::vector<PartialShape>& padded_shapes, std::vector<Tensor>& padding_values);
Result<Element> PadBatch(std::string_view op, const std::vector<Element>& rows,
                         const std::vector<PartialShape>& padded_shapes, const std::vector<Tensor>& padding_values,
                         int64_t max_bytes);

// The rows of one batch that padded_batch and ragged_batch gather before
// they batch them: up to `batch_size` elements of `input`, fewer at its
// end. The bytes they hold are counted as they arrive, and more than
// `max_bytes` (the RAM budget) is ResourceExhausted naming `op`.
// `check_first` (may be null) vets the first row before more are read. An
// input error is returned at once, dropping the rows gathered.
Result<std::vector<Element>> GatherRows(std::string_view op, Iterator& input, int64_t batch_size, int64_t max_bytes,
                                        const std::function<Status(const Element&)>& check_first);

}  // namespace sluice
