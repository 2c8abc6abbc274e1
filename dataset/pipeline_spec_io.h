// Pipeline specs in and out (dataset/pipeline_spec.proto): a built graph to
// its spec and back, and the protobuf text format people write.
//
//   SLUICE_ASSIGN_OR_RETURN(spec::Pipeline spec, ReadSpecFile("pipeline.pbtxt"));
//   SLUICE_ASSIGN_OR_RETURN(DatasetPtr dataset, DatasetFromSpec(spec));
//
// Building a spec calls the same validating Make<Op>Dataset factories as C++
// code does, so a bad spec fails with the factory's message, prefixed by the
// position of the op in its chain: "ops[3] (batch): batch: Batch size must be
// greater than zero (got 0)."; nested chains add their place ("ops[1] (zip):
// others[0]: ...").
// Thread safety: pure functions; the returned functions are immutable.
#pragma once

#include <string>
#include <string_view>

#include "sluice/dataset/dataset.h"
#include "sluice/dataset/functions.h"
#include "sluice/dataset/pipeline_spec.pb.h"

namespace sluice {

// The spec of a graph. Unimplemented, naming the op, when the graph holds a
// C++ callable (a lambda map, filter or interleave function).
Result<spec::Pipeline> DatasetToSpec(const Dataset& dataset);

// Builds the graph a spec describes. ops[0] must be a source (from_slices,
// range, ...: SpecSourceNames in dataset/op_spec.h); each later op reads the
// op before it, and is read by its own reader (dataset/op_spec.h). Defaults of
// the optional fields: range step 1 and dtype int64, shuffle reshuffles each
// iteration (and without a seed picks a random one), repeat forever,
// interleave cycle_length -1 (autotune) and block_length 1, one_hot dtype
// float32. Fields without a default are passed as written (proto3 reads a
// missing one as 0). A graph deeper than kMaxGraphDepth (dataset/dataset.h)
// is refused, naming the op where it went past the limit.
Result<DatasetPtr> DatasetFromSpec(const spec::Pipeline& pipeline);

// Interleave's function as a spec: `function` starts with an element_source
// that turns each input element into a dataset (TENSORS: the element itself;
// SLICES: its slices along dimension 0; RANGE: range(0, x) for a scalar
// integer element x), followed by any ops. `input_spec` is the spec of the
// elements it will be applied to; the chain is validated against it here,
// once, and the output spec inferred with unknown dimensions kept unknown.
Result<DatasetFunctionPtr> MakeSpecDatasetFunction(spec::Pipeline function,
                                                   const ElementSpec& input_spec);

// The first op of a function's chain before an element is bound to it, for
// building a function in code: ops applied to it, written with
// DatasetToSpec, make the `function` of MakeSpecDatasetFunction. Iterating
// it is FailedPrecondition. Every kind but TFRECORD.
Result<DatasetPtr> MakeUnboundElementSource(spec::ElementSource::Kind kind, const ElementSpec& input_spec);

// The largest spec text or binary spec accepted, 64 MiB: a spec is a
// description, not data, and a file without end (/dev/zero) must stop.
inline constexpr size_t kMaxSpecBytes = size_t{64} << 20;

// Parsing refuses specs above kMaxSpecBytes and messages nested beyond what
// pipelines nested kMaxGraphDepth deep need (DatasetFromSpec then refuses
// nesting above kMaxGraphDepth, before it builds anything).
// The text format. Parse errors are InvalidArgument with protobuf's message
// and its 1-based line:column ("3:7: Expected integer, got: abc").
Result<spec::Pipeline> ParseSpecText(std::string_view text);
// The binary (wire) format.
Result<spec::Pipeline> ParseSpecBinary(std::string_view bytes);
// A text spec from a file, read in bounded chunks. NotFound when the file
// does not exist; read errors name the file, the byte offset and the
// system's reason; parse errors name the file.
Result<spec::Pipeline> ReadSpecFile(const std::string& path);
std::string SpecToText(const spec::Pipeline& pipeline);

}  // namespace sluice
