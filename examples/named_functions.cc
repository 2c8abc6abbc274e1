// Named functions: a C++ function registered by name, which a pipeline spec
// can then name too, and a plugin's function (dataset/plugin.h) loaded by
// path. Run as `named_functions [PLUGIN_PATH]`; with the path of the example
// plugin (examples/plugin/) the second pipeline maps its clip_and_scale.
#include <cstdio>

#include "sluice/dataset/function_registry.h"
#include "sluice/dataset/pipeline.h"
#include "sluice/dataset/pipeline_spec_io.h"
#include "sluice/dataset/plugin.h"

using namespace sluice;

// x + offset for int64 scalars: the factory reads the spec's arguments.
Result<ElementFunctionPtr> MakeAddOffset(const FunctionArgs& args) {
  SLUICE_RETURN_IF_ERROR(args.CheckKnown("add_offset", {"offset"}));
  SLUICE_ASSIGN_OR_RETURN(const int64_t offset, args.Int("add_offset", "offset", 0));
  return MakeLambdaFunction([offset](Element e) -> Result<Element> {
    return Element{Tensor::Scalar<int64_t>(e[0].scalar<int64_t>() + offset)};
  });
}

int Fail(const Status& status) {
  std::fprintf(stderr, "%s\n", status.ToString().c_str());
  return 1;
}

int main(int argc, char** argv) {
  // Explicit registration, once, before any spec names the function.
  if (Status s = FunctionRegistry::Global().RegisterElementFunction("add_offset", MakeAddOffset); !s.ok()) return Fail(s);

  auto pipeline = Pipeline::Range(3).Map(MakeNamedFunction("add_offset", {{"offset", int64_t{10}}}));
  Result<DatasetPtr> dataset = pipeline.Build();
  if (!dataset.ok()) return Fail(dataset.status());
  Result<spec::Pipeline> spec = DatasetToSpec(**dataset);  // serializes by name
  if (!spec.ok()) return Fail(spec.status());
  std::printf("%s", SpecToText(*spec).c_str());
  auto elements = pipeline.Elements();
  for (const Element& element : elements) std::printf("%s ", element.DebugString().c_str());
  std::printf("\n");
  if (!elements.status().ok()) return Fail(elements.status());

  if (argc < 2) return 0;
  Result<PluginPtr> plugin = LoadPlugin(argv[1]);
  if (!plugin.ok()) return Fail(plugin.status());
  auto clipped = Pipeline::FromSlices({{"x", Tensor::FromVector<float>({-1, 0.5, 2})}})
                     .Map((*plugin)->MakeFunction("clip_and_scale", {{"lo", 0.0}, {"hi", 1.0}, {"scale", 10.0}}));
  auto clipped_elements = clipped.Elements();
  for (const Element& element : clipped_elements) std::printf("%s ", element.DebugString().c_str());
  std::printf("\n");
  return clipped_elements.status().ok() ? 0 : Fail(clipped_elements.status());
}
