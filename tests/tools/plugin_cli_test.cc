// `sluice run` and `sluice describe` on a spec that names a function of the
// example plugin (examples/plugin/), and on one whose plugin is missing.
#include <fstream>

#include "sluice/tests/temp_dir.h"
#include "sluice/tests/tools/cli_runner.h"

namespace sluice {
namespace {

// A spec file in `dir` mapping clip_and_scale over four floats, loading the
// plugin at `plugin_path`.
std::string WriteSpec(const testing::TempDir& dir, const std::string& plugin_path) {
  const std::string path = dir.File("plugin.pbtxt");
  std::ofstream(path) << R"pb(ops { from_slices { components { name: "x" tensor { dtype: "float32" shape: [4] float_values: [-1, 0.5, 2, 0.25] } } } }
ops { map { fn { named {
  name: "clip_and_scale"
  args { key: "scale" value { float_value: 4 } }
  plugin { path: ")pb" << plugin_path << R"pb(" name: "example" version: "1.0" } } } } }
ops { batch { batch_size: 2 } }
)pb";
  return path;
}

TEST(PluginCliTest, RunsASpecNamingAPluginFunction) {
  testing::TempDir dir;
  const CliResult result = RunCli("run " + WriteSpec(dir, SLUICE_EXAMPLE_PLUGIN_PATH));
  EXPECT_EQ(result.exit_code, 0);
  EXPECT_EQ(result.lines, (Lines{R"({"x": [0, 2]})", R"({"x": [4, 1]})"}));
}

TEST(PluginCliTest, MissingPluginFailsNamingIt) {
  testing::TempDir dir;
  const CliResult result = RunCli("run " + WriteSpec(dir, dir.File("libgone.so")), /*capture_stderr=*/true);
  EXPECT_NE(result.exit_code, 0);
  ASSERT_FALSE(result.lines.empty());
  EXPECT_NE(result.lines[0].find("plugin library '" + dir.File("libgone.so") + "' cannot be found"), std::string::npos)
      << result.lines[0];
}

}  // namespace
}  // namespace sluice
