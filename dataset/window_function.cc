#include "sluice/dataset/window_function.h"

#include "sluice/dataset/builtin_functions.h"
#include "sluice/dataset/op_spec.h"
#include "sluice/dataset/pipeline.h"
#include "sluice/dataset/pipeline_spec_io.h"

namespace sluice {

Result<DatasetFunctionPtr> MakeWindowFunction(const WindowBody& body, const ElementSpec& window_spec,
                                              size_t hidden_trailing) {
  if (!body) return InvalidArgumentError("window function: body is empty");
  SLUICE_CHECK(hidden_trailing <= window_spec.size()) << "hides more components than the window has";
  const size_t visible = window_spec.size() - hidden_trailing;
  SLUICE_ASSIGN_OR_RETURN(DatasetPtr source, MakeUnboundElementSource(spec::ElementSource::SLICES, window_spec));
  Pipeline rows(std::move(source));
  if (hidden_trailing > 0) {
    std::vector<std::string> names;
    for (size_t i = 0; i < visible; ++i) names.push_back(window_spec.DisplayName(i));
    rows = rows.Map(MakeSelectFunction(std::move(names)));
  }
  SLUICE_ASSIGN_OR_RETURN(DatasetPtr chain, WithContext(body(std::move(rows)).Build(), "window function"));
  Result<spec::Pipeline> function = DatasetToSpec(*chain);
  if (function.ok()) return MakeSpecDatasetFunction(*std::move(function), window_spec);
  if (function.status().code() != StatusCode::kUnimplemented) return function.status();
  // body holds a C++ callable: each window's rows become a from_slices pipeline.
  return MakeLambdaDatasetFunction(
      [body, window_spec, visible](const Element& window) -> Result<DatasetPtr> {
        std::vector<NamedTensor> components;
        for (size_t i = 0; i < visible; ++i) components.push_back({window_spec[i].name, window[i]});
        return body(Pipeline::FromSlices(std::move(components))).Build();
      },
      chain->element_spec());
}

}  // namespace sluice
