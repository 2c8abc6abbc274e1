#include "sluice/dataset/list_files_dataset.h"

#include <fstream>

#include "sluice/dataset/pipeline_spec_io.h"
#include "sluice/tests/dataset/contract.h"
#include "sluice/tests/temp_dir.h"

namespace sluice {
namespace {

using namespace ::sluice::testing;

class ListFilesTest : public ::testing::Test {
 protected:
  ListFilesTest() {
    for (const char* name : {"b.tfr", "a.tfr", "c.tfr", "notes.txt"}) std::ofstream(dir_ + "/" + name);
  }

  std::vector<std::string> Names(const DatasetPtr& dataset) {
    std::vector<std::string> names;
    for (const Element& e : Collect(dataset)) names.emplace_back(e[0].scalar<TString>());
    return names;
  }

  TempDir temp_;
  const std::string dir_ = temp_.path();
};

TEST_F(ListFilesTest, SortedMatchesWithoutShuffle) {
  const DatasetPtr dataset = Build(Pipeline::ListFiles({.patterns = {dir_ + "/*.tfr"}, .shuffle = false}));
  EXPECT_EQ(Names(dataset), (std::vector<std::string>{dir_ + "/a.tfr", dir_ + "/b.tfr", dir_ + "/c.tfr"}));
  EXPECT_EQ(dataset->cardinality(), 3);
  EXPECT_EQ(dataset->element_spec(), (ElementSpec{{"", DType::kString, Shape{}}}));
  // Overlapping patterns list a file once.
  EXPECT_EQ(Names(Build(Pipeline::ListFiles(
                {.patterns = {dir_ + "/a.*", dir_ + "/*.txt", dir_ + "/a.tfr"}, .shuffle = false}))),
            (std::vector<std::string>{dir_ + "/a.tfr", dir_ + "/notes.txt"}));
}

TEST_F(ListFilesTest, ShuffleIsASeededPermutationPerIteration) {
  const ListFilesOptions options{.patterns = {dir_ + "/*"}, .seed = 42};
  const DatasetPtr a = Build(Pipeline::ListFiles(options));
  const DatasetPtr b = Build(Pipeline::ListFiles(options));
  std::vector<std::string> first = Names(a);
  EXPECT_EQ(first, Names(b));  // same seed, same order
  std::vector<std::string> sorted = first;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(sorted, Names(Build(Pipeline::ListFiles({.patterns = {dir_ + "/*"}, .shuffle = false}))));
  bool reshuffled = false;
  for (int i = 0; i < 10 && !reshuffled; ++i) reshuffled = Names(a) != first;
  EXPECT_TRUE(reshuffled);
}

TEST_F(ListFilesTest, NoMatchIsNotFoundAtBuildTime) {
  ExpectError(Pipeline::ListFiles({.patterns = {dir_ + "/*.parquet"}}), StatusCode::kNotFound,
              "No files matched pattern: " + dir_ + "/*.parquet");
  ExpectError(Pipeline::ListFiles({}), StatusCode::kInvalidArgument, "no patterns");
}

TEST_F(ListFilesTest, UnreadableDirectoryIsNamedWithTheReason) {
  ExpectError(Pipeline::ListFiles({.patterns = {dir_ + "/missing/*.tfr"}}), StatusCode::kNotFound,
              "list_files: cannot expand pattern '" + dir_ + "/missing/*.tfr': directory '" + dir_ +
                  "/missing' could not be read: No such file or directory");
  // A file where a directory is expected.
  ExpectError(Pipeline::ListFiles({.patterns = {dir_ + "/*/x"}}), StatusCode::kNotFound,
              "No files matched pattern: " + dir_ + "/*/x");
}

// A cap on the files (the data service's split cap) ends the listing as
// soon as more entries than that match, before glob holds them all.
// Overlapping patterns count a file once per pattern.
TEST_F(ListFilesTest, MatchFilesPastItsCapIsResourceExhausted) {
  for (int i = 0; i < 200; ++i) std::ofstream(dir_ + "/many-" + std::to_string(i) + ".tfr");
  Result<std::vector<std::string>> all = MatchFiles({dir_ + "/*.tfr"}, 203);
  ASSERT_TRUE(all.ok()) << all.status();
  EXPECT_EQ(all->size(), 203u);
  Result<std::vector<std::string>> capped = MatchFiles({dir_ + "/*.tfr"}, 10);
  ASSERT_FALSE(capped.ok());
  EXPECT_EQ(capped.status().code(), StatusCode::kResourceExhausted) << capped.status();
  EXPECT_NE(capped.status().message().find("the patterns match more than 10 files, the cap (counted up to pattern '" +
                                           dir_ + "/*.tfr')"),
            std::string::npos)
      << capped.status();
  EXPECT_EQ(MatchFiles({dir_ + "/a.*", dir_ + "/*.txt"}, 2)->size(), 2u);
  EXPECT_EQ(MatchFiles({dir_ + "/a.*", dir_ + "/a.tfr"}, 1).status().code(), StatusCode::kResourceExhausted);
  // The cap counts matches, not the directory's other entries.
  EXPECT_EQ(MatchFiles({dir_ + "/notes.txt"}, 1)->size(), 1u);
}

TEST_F(ListFilesTest, SpecRoundTrip) {
  const DatasetPtr dataset = Build(Pipeline::ListFiles({.patterns = {dir_ + "/*.tfr"}, .seed = 7}));
  const DatasetPtr back = Ok(DatasetFromSpec(Ok(DatasetToSpec(*dataset))));
  EXPECT_EQ(Names(back), Names(dataset));
  EXPECT_NE(DescribeGraph(*dataset).find("list_files(patterns=["), std::string::npos);
}

}  // namespace
}  // namespace sluice
