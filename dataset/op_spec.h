// Reading dataset ops from pipeline specs (dataset/pipeline_spec.proto).
//
// Each op reads its own DatasetNode field beside its code: `<Op>FromSpec`,
// declared in the op's header and defined in its .cc next to the ToSpec
// that writes the same field. The one list in op_spec.cc registers every
// reader, a line per op, and DatasetFromSpec (dataset/pipeline_spec_io.h)
// finds the reader of each node there. A reader calls the op's validating
// Make<Op>Dataset factory, so a bad spec fails with the factory's message.
//
// The pipelines an op nests (zip's others, interleave's function) are the
// fields of type Pipeline in its message; the nesting bound finds them there
// without asking the op.
// Thread safety: the list is immutable; readers are pure functions.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "sluice/dataset/dataset.h"
#include "sluice/dataset/functions.h"
#include "sluice/dataset/pipeline_spec.pb.h"
#include "sluice/dataset/runtime.h"

namespace sluice {

// What a reader may use besides its node: the dataset it reads and the
// builders of what it nests.
class OpSpecContext {
 public:
  // The dataset the op reads (the op before it in its chain); null for a
  // source.
  virtual const DatasetPtr& input() const = 0;
  // The seed of the pipeline the op is part of (spec Pipeline.seed, or the
  // enclosing pipeline's when a nested one has none), for random functions.
  virtual std::optional<uint64_t> pipeline_seed() const = 0;
  // Builds a pipeline nested in the op (zip's others, concatenate's other).
  virtual Result<DatasetPtr> BuildPipeline(const spec::Pipeline& pipeline) const = 0;
  // Builds a function of input()'s elements (interleave's), a pipeline that
  // starts with an element_source (MakeSpecDatasetFunction).
  // REQUIRES: `function` is part of the node being read.
  virtual Result<DatasetFunctionPtr> BuildFunction(const spec::Pipeline& function) const = 0;

 protected:
  ~OpSpecContext() = default;
};

// Builds the dataset `node` describes; an op that is not a source reads
// context.input().
using OpFromSpec = Result<DatasetPtr> (*)(const spec::DatasetNode& node, const OpSpecContext& context);

struct OpSpecReader {
  spec::DatasetNode::OpCase op;
  bool is_source;  // a source may only be the first op of a chain, which must be one
  OpFromSpec read;
};

// The reader of `op`; null when none is registered (unset nodes, and
// element_source, which only starts interleave's function).
const OpSpecReader* FindOpSpecReader(spec::DatasetNode::OpCase op);
// The node's op as its field name in the spec ("batch"), or "unset".
std::string SpecOpName(const spec::DatasetNode& node);
// The sources' field names for people: "from_slices, from_tensors, ... or counter".
std::string SpecSourceNames();

// An op's optional `deterministic` field.
Determinism DeterminismFromSpec(bool has_deterministic, bool deterministic);

// `result`, or its error prefixed with `context` (a field name).
template <typename T>
Result<T> WithContext(Result<T> result, std::string_view context) {
  if (!result.ok()) return result.status().WithContext(context);
  return result;
}

}  // namespace sluice
