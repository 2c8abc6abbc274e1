#include "sluice/dataset/flat_map_dataset.h"

#include "sluice/dataset/interleave_dataset.h"
#include "sluice/dataset/op_spec.h"
#include "sluice/dataset/pipeline_spec.pb.h"

namespace sluice {
namespace {

constexpr std::string_view kOp = "flat_map";

Status WriteFlatMapNode(const DatasetFunction& fn, spec::Pipeline* pipeline) {
  spec::FlatMap flat_map;
  SLUICE_RETURN_IF_ERROR(fn.ToSpec(flat_map.mutable_function()));
  *pipeline->add_ops()->mutable_flat_map() = std::move(flat_map);
  return OkStatus();
}

}  // namespace

Result<DatasetPtr> MakeFlatMapDataset(DatasetPtr input, DatasetFunctionPtr fn) {
  return MakeInterleaveDatasetAs({.op_name = kOp, .write_node = WriteFlatMapNode}, std::move(input), std::move(fn),
                                 {.cycle_length = 1, .block_length = 1});
}

Result<DatasetPtr> FlatMapDatasetFromSpec(const spec::DatasetNode& node, const OpSpecContext& context) {
  const spec::FlatMap& flat_map = node.flat_map();
  if (!flat_map.has_function()) return InvalidArgumentError("flat_map has no function");
  SLUICE_ASSIGN_OR_RETURN(DatasetFunctionPtr fn, WithContext(context.BuildFunction(flat_map.function()), "function"));
  return MakeFlatMapDataset(context.input(), std::move(fn));
}

}  // namespace sluice
