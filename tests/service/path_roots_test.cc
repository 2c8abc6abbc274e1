#include "sluice/service/path_roots.h"

#include <gtest/gtest.h>

#include "sluice/dataset/pipeline_spec_io.h"
#include "temp_dir.h"

namespace sluice::service {
namespace {

// A spec whose map names a plugin function from `path`, nested in a zip.
spec::Pipeline SpecWithPlugin(const std::string& path) {
  Result<spec::Pipeline> spec = ParseSpecText(StrCat(R"pb(
    ops { range { stop: 2 } }
    ops { zip { others { ops { range { stop: 2 } }
                         ops { map { fn { named { name: "f" plugin { path: ")pb", path, R"pb(" } } } } } } } }
  )pb"));
  EXPECT_TRUE(spec.ok()) << spec.status();
  return *spec;
}

TEST(PathRootsTest, PluginLibrariesMustLieUnderARoot) {
  testing::TempDir root;
  Result<PathRoots> roots = PathRoots::Make({root.path()});
  ASSERT_TRUE(roots.ok()) << roots.status();
  EXPECT_TRUE(roots->CheckSpec(SpecWithPlugin(root.File("libmine.so"))).ok());
  Status outside = roots->CheckSpec(SpecWithPlugin("/usr/lib/libevil.so"));
  EXPECT_EQ(outside.code(), StatusCode::kInvalidArgument) << outside;
  EXPECT_NE(outside.message().find("plugin library: path '/usr/lib/libevil.so' is outside the roots"),
            std::string::npos)
      << outside;
}

}  // namespace
}  // namespace sluice::service
