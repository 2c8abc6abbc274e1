#include "sluice/dataset/plugin.h"

#include <cmath>

#include <fstream>

#include "contract.h"
#include "sluice/dataset/element_seeds.h"
#include "sluice/dataset/function_registry.h"
#include "sluice/dataset/pipeline.h"
#include "sluice/dataset/pipeline_spec_io.h"
#include "temp_dir.h"

namespace sluice {
namespace {

using testing::Ok;

constexpr const char* kExample = SLUICE_EXAMPLE_PLUGIN_PATH;

void ExpectErrorContains(const Status& status, StatusCode code, const std::vector<std::string>& parts) {
  EXPECT_EQ(status.code(), code) << status;
  for (const std::string& part : parts) EXPECT_NE(status.message().find(part), std::string::npos) << status;
}

// The example plugin's map over `values` (float32 [n] slices) as a spec.
std::string ClipSpecText(const std::string& plugin) {
  return StrCat(R"pb(
    ops { from_slices { components { tensor { dtype: "float32" shape: [4, 2] float_values: [-1, 0.25, 0.5, 2, 3, -4, 0.75, 1] } } } }
    ops { map { fn { named {
      name: "clip_and_scale"
      args { key: "lo" value { float_value: 0 } }
      args { key: "hi" value { float_value: 1 } }
      args { key: "scale" value { int_value: 10 } }
      )pb", plugin, R"pb( } } } }
  )pb");
}

std::string Reference(const std::string& name, const std::string& version) {
  return StrCat("plugin { path: \"", kExample, "\" name: \"", name, "\" version: \"", version, "\" }");
}

std::vector<std::vector<float>> FloatRows(const Pipeline& pipeline) {
  std::vector<std::vector<float>> rows;
  auto elements = pipeline.Elements();
  for (const Element& e : elements) rows.emplace_back(e[0].data<float>(), e[0].data<float>() + e[0].NumElements());
  EXPECT_TRUE(elements.status().ok()) << elements.status();
  return rows;
}

TEST(PluginTest, LoadsAndReportsItself) {
  PluginPtr plugin = Ok(LoadPlugin(kExample));
  EXPECT_EQ(plugin->name(), "example");
  EXPECT_EQ(plugin->version(), "1.0");
  EXPECT_EQ(plugin->FunctionNames(), (std::vector<std::string>{"clip_and_scale", "is_nonempty", "repeat_string"}));
  EXPECT_EQ(Ok(LoadPlugin(kExample)).get(), plugin.get()) << "a second load returns the loaded plugin";
  EXPECT_EQ(FindLoadedPlugin("example").get(), plugin.get());
  const std::vector<std::string> names = FunctionRegistry::Global().ElementFunctionNames();
  EXPECT_NE(std::find(names.begin(), names.end(), "example.clip_and_scale"), names.end());
}

TEST(PluginTest, SpecRunsAPluginFunction) {
  DatasetPtr dataset = Ok(DatasetFromSpec(Ok(ParseSpecText(ClipSpecText(Reference("example", "1.0"))))));
  EXPECT_EQ(FloatRows(Pipeline(dataset)),
            (std::vector<std::vector<float>>{{0, 2.5}, {5, 10}, {10, 0}, {7.5, 10}}));
  EXPECT_NE(DescribeGraph(*dataset).find("example.clip_and_scale(hi=1, lo=0, scale=10)"), std::string::npos)
      << DescribeGraph(*dataset);
}

TEST(PluginTest, PipelineBuiltInCppRecordsThePluginInItsSpec) {
  PluginPtr plugin = Ok(LoadPlugin(kExample));
  Pipeline pipeline = Pipeline::FromSlices({{"x", Tensor::FromVector<float>({-2, 0.5, 9})}})
                          .Map(plugin->MakeFunction("clip_and_scale", {{"hi", 1.0}, {"scale", 2.0}}))
                          .Batch({.batch_size = 2});
  EXPECT_EQ(FloatRows(pipeline), (std::vector<std::vector<float>>{{0, 1}, {2}}));
  spec::Pipeline spec = Ok(DatasetToSpec(*Ok(pipeline.Build())));
  const spec::NamedFunction& named = spec.ops(1).map().fn().named();
  EXPECT_EQ(named.name(), "clip_and_scale");
  EXPECT_EQ(named.plugin().name(), "example");
  EXPECT_EQ(named.plugin().version(), "1.0");
  EXPECT_EQ(named.plugin().path(), plugin->path());
  // The spec builds the same pipeline again; so does the registry's name.
  EXPECT_EQ(FloatRows(Pipeline(DatasetFromSpec(spec))), FloatRows(pipeline));
  Pipeline by_name = Pipeline::FromSlices({{"x", Tensor::FromVector<float>({-2, 0.5, 9})}})
                         .Map(MakeNamedFunction("example.clip_and_scale", {{"hi", 1.0}, {"scale", 2.0}}))
                         .Batch({.batch_size = 2});
  EXPECT_EQ(SpecToText(Ok(DatasetToSpec(*Ok(by_name.Build())))), SpecToText(spec));
}

TEST(PluginTest, RowWiseFunctionSeesWholeRuns) {
  PluginPtr plugin = Ok(LoadPlugin(kExample));
  ElementFunctionPtr fn = Ok(plugin->MakeFunction("clip_and_scale"));
  BoundElementFunction bound = Ok(fn->Bind(ElementSpec{{"", DType::kFloat32, Shape{2}}}));
  EXPECT_TRUE(bound.row_wise);
  Element run = Ok(bound.apply(Element{Tensor::FromVector<float>({-1, 0.5, 2, 0.25}, Shape{2, 2})}));
  EXPECT_TRUE(run[0].Equals(Tensor::FromVector<float>({0, 0.5, 1, 0.25}, Shape{2, 2})));
}

TEST(PluginTest, StringFunctionAndPredicate) {
  spec::Pipeline spec = Ok(ParseSpecText(StrCat(R"pb(
    ops { from_slices { components { name: "text" tensor { dtype: "string" shape: [3] string_values: ["ab", "", "c"] } } } }
    ops { filter { predicate { named { name: "is_nonempty" )pb", Reference("example", "1.0"), R"pb( } } } }
    ops { map { fn { named { name: "repeat_string" args { key: "times" value { int_value: 3 } } )pb",
                                                Reference("example", "1.0"), R"pb( } } } }
  )pb")));
  DatasetPtr dataset = Ok(DatasetFromSpec(spec));
  EXPECT_EQ(dataset->element_spec(), (ElementSpec{{"text", DType::kString, Shape{}}}));
  std::vector<std::string> out;
  auto elements = Pipeline(dataset).Elements();
  for (const Element& e : elements) out.emplace_back(e[0].scalar<TString>());
  EXPECT_EQ(out, (std::vector<std::string>{"ababab", "ccc"}));
  EXPECT_EQ(SpecToText(Ok(DatasetToSpec(*dataset))), SpecToText(spec));
}

TEST(PluginTest, CallbackErrorIsThatElementsError) {
  PluginPtr plugin = Ok(LoadPlugin(kExample));
  Pipeline pipeline = Pipeline::FromSlices({{"", Tensor::FromVector<float>({1, std::nanf(""), 0.5})}})
                          .Map(plugin->MakeFunction("clip_and_scale"));
  Ok(pipeline.Build());
  std::unique_ptr<Iterator> it = Ok(pipeline.MakeIterator());
  EXPECT_TRUE(Ok(it->GetNext()).has_value());
  Result<std::optional<Element>> failed = it->GetNext();
  ExpectErrorContains(failed.status(), StatusCode::kInvalidArgument,
                      {"plugin 'example' (", "function 'clip_and_scale': input holds NaN"});
  EXPECT_EQ((*Ok(it->GetNext()))[0].scalar<float>(), 0.5f) << "the iterator stays usable";
}

TEST(PluginTest, ArgumentAndSpecErrorsComeFromThePlugin) {
  PluginPtr plugin = Ok(LoadPlugin(kExample));
  ExpectErrorContains(plugin->MakeFunction("clip_and_scale", {{"lo", 2.0}, {"hi", 1.0}}).status(),
                      StatusCode::kInvalidArgument, {"function 'clip_and_scale': lo must not be above hi"});
  ExpectErrorContains(plugin->MakeFunction("is_nonempty", {{"x", int64_t{1}}}).status(), StatusCode::kInvalidArgument,
                      {"function 'is_nonempty': takes no arguments, got 'x'"});
  Result<DatasetPtr> wrong_input = Pipeline::Range(3).Map(plugin->MakeFunction("clip_and_scale")).Build();
  ExpectErrorContains(wrong_input.status(), StatusCode::kInvalidArgument,
                      {"function 'clip_and_scale': for input", "expects one float32 component"});
}

TEST(PluginTest, UnknownFunctionInAPluginListsItsFunctions) {
  Result<DatasetPtr> dataset = DatasetFromSpec(Ok(ParseSpecText(
      StrCat("ops { range { stop: 2 } } ops { map { fn { named { name: \"clip\" ", Reference("example", "1.0"),
             " } } } }"))));
  ExpectErrorContains(dataset.status(), StatusCode::kNotFound,
                      {"ops[1] (map)", "plugin 'example' (", "has no function 'clip' (it has clip_and_scale, "
                                                               "is_nonempty, repeat_string)"});
}

TEST(PluginTest, MissingPluginIsNotFoundNamingThePath) {
  Result<DatasetPtr> dataset = DatasetFromSpec(Ok(ParseSpecText(ClipSpecText(
      "plugin { path: \"/nonexistent/libmissing_plugin.so\" name: \"missing\" version: \"1\" }"))));
  ExpectErrorContains(dataset.status(), StatusCode::kNotFound,
                      {"ops[1] (map)", "plugin library '/nonexistent/libmissing_plugin.so' cannot be found"});
}

TEST(PluginTest, VersionOrNameMismatchNamesBoth) {
  Result<DatasetPtr> version = DatasetFromSpec(Ok(ParseSpecText(ClipSpecText(Reference("example", "2.0")))));
  ExpectErrorContains(version.status(), StatusCode::kFailedPrecondition,
                      {"the spec expects plugin 'example' version '2.0', but the library is plugin 'example' "
                       "version '1.0'"});
  Result<DatasetPtr> name = DatasetFromSpec(Ok(ParseSpecText(ClipSpecText(Reference("other", "1.0")))));
  ExpectErrorContains(name.status(), StatusCode::kFailedPrecondition,
                      {"expects plugin 'other' version '1.0', but the library is plugin 'example'"});
}

TEST(PluginTest, LibrariesThatAreNotPluginsAreRefused) {
  ExpectErrorContains(LoadPlugin(SLUICE_FUTURE_ABI_PLUGIN_PATH).status(), StatusCode::kFailedPrecondition,
                      {"was built for plugin ABI version 2, but this Sluice loads version 1"});
  ExpectErrorContains(LoadPlugin(SLUICE_NO_ENTRY_PLUGIN_PATH).status(), StatusCode::kInvalidArgument,
                      {"has no entry point sluice_plugin_info"});
  // A file that is no shared library at all.
  testing::TempDir dir;
  std::ofstream(dir.File("libtext.so")) << "not a library";
  ExpectErrorContains(LoadPlugin(dir.File("libtext.so")).status(), StatusCode::kInvalidArgument,
                      {"plugin library '", "libtext.so' cannot be loaded: "});
  EXPECT_EQ(FindLoadedPlugin("future"), nullptr);
  // A plugin of this major version but a later minor version.
  ExpectErrorContains(LoadPlugin(SLUICE_NEWER_MINOR_PLUGIN_PATH).status(), StatusCode::kFailedPrecondition,
                      {"was built for plugin ABI version 1.2, but this Sluice loads versions up to 1.1"});
}

// A plugin of minor version 1 flags a function random: map hands its compute
// each element's seed in host->element_seed, at any parallelism. The example
// plugin, built for minor version 0, loads beside it (the tests above).
TEST(PluginTest, RandomFunctionGetsTheElementSeed) {
  PluginPtr plugin = Ok(LoadPlugin(SLUICE_RANDOM_PLUGIN_PATH));
  auto seeds = [&](int64_t parallelism) {
    std::vector<int64_t> out;
    for (const Element& e : testing::Collect(
             Pipeline::Range(50).Seed(3).Map(plugin->MakeFunction("element_seed", {}), {.num_parallel_calls = parallelism}))) {
      out.push_back(e[0].scalar<int64_t>());
    }
    return out;
  };
  const std::vector<int64_t> sequential = seeds(0);
  ASSERT_EQ(sequential.size(), 50u);
  // The map is 2 deep; its first iterator is epoch 0.
  const uint64_t iterator_seed = MixSeed(FunctionSeed(std::nullopt, 3, 2), 0);
  for (int64_t i = 0; i < 50; ++i) {
    EXPECT_EQ(static_cast<uint64_t>(sequential[i]), ElementSeeds::At(iterator_seed, i)) << "element " << i;
  }
  EXPECT_EQ(seeds(4), sequential);
  BoundElementFunction bound = Ok(Ok(plugin->MakeFunction("element_seed", {}))->Bind({{"", DType::kInt64, Shape{}}}));
  EXPECT_FALSE(bound.row_wise);
  ExpectErrorContains(bound.apply(testing::Int(1)).status(), StatusCode::kFailedPrecondition,
                      {"function 'element_seed': is random and draws from the seed map gives each element"});
}

TEST(PluginTest, ParallelMapMatchesSequential) {
  PluginPtr plugin = Ok(LoadPlugin(kExample));
  std::vector<float> values;
  for (int i = 0; i < 200; ++i) values.push_back(float(i % 7) / 4.0f);
  auto run = [&](int64_t parallelism) {
    return FloatRows(Pipeline::FromSlices({{"", Tensor::FromVector<float>(values)}})
                         .Map(plugin->MakeFunction("clip_and_scale", {{"scale", 3.0}}),
                              {.num_parallel_calls = parallelism}));
  };
  EXPECT_EQ(run(4), run(0));
}

}  // namespace
}  // namespace sluice
