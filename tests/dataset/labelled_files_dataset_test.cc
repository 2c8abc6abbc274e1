#include "sluice/dataset/labelled_files_dataset.h"

#include <algorithm>
#include <filesystem>

#include "sluice/dataset/pipeline_spec_io.h"
#include "sluice/tests/dataset/contract.h"
#include "sluice/tests/temp_dir.h"
#include "sluice/tests/write_file.h"

namespace sluice {
namespace {

using namespace ::sluice::testing;

Element File(const std::string& contents, int64_t label, const std::string& path) {
  return Element{{Tensor::Scalar(contents), Tensor::Scalar<int64_t>(label), Tensor::Scalar(path)}};
}

// root/cat/a.jpg, root/cat/sub/b.JPG, root/dog/c.png, and files the
// listing leaves out: hidden ones, a hidden class, a file outside a class,
// and (unless every file is taken) a text file.
class LabelledFilesTest : public ::testing::Test {
 protected:
  LabelledFilesTest() {
    for (const char* dir : {"cat/sub", "dog", ".git"}) std::filesystem::create_directories(dir_.File(dir));
    WriteFile(dir_, "cat/a.jpg", "A");
    WriteFile(dir_, "cat/sub/b.JPG", "BB");
    WriteFile(dir_, "dog/c.png", "CCC");
    WriteFile(dir_, "dog/notes.txt", "notes");
    WriteFile(dir_, "dog/.hidden.jpg", "hidden");
    WriteFile(dir_, ".git/x.jpg", "hidden class");
    WriteFile(dir_, "outside.jpg", "not in a class");
  }

  LabelledFilesOptions Options() const {
    return {.directory = dir_.path(), .extensions = {".jpg", ".png"}, .shuffle = false};
  }
  std::string Path(const std::string& name) const { return dir_.File(name); }

  TempDir dir_;
};

TEST_F(LabelledFilesTest, ListsClassesAndFilesInOrder) {
  const Pipeline files = Pipeline::LabelledFiles(Options());
  const std::vector<Element> expected = {File("A", 0, Path("cat/a.jpg")), File("BB", 0, Path("cat/sub/b.JPG")),
                                         File("CCC", 1, Path("dog/c.png"))};
  ExpectProduces(files, expected);
  const DatasetPtr dataset = Build(files);
  EXPECT_EQ(dataset->cardinality(), 3);
  EXPECT_EQ(dataset->element_spec(), (ElementSpec{{"contents", DType::kString, PartialShape(Shape{})},
                                                  {"label", DType::kInt64, PartialShape(Shape{})},
                                                  {"path", DType::kString, PartialShape(Shape{})}}));
  // Parallel reads keep the order.
  LabelledFilesOptions parallel = Options();
  parallel.num_parallel_reads = 2;
  ExpectProduces(Pipeline::LabelledFiles(parallel), expected);
  // Without extensions every visible file; class_names pick and order the classes.
  LabelledFilesOptions every = Options();
  every.extensions = {};
  every.class_names = {"dog", "cat"};
  ExpectProduces(Pipeline::LabelledFiles(every),
                 {File("CCC", 0, Path("dog/c.png")), File("notes", 0, Path("dog/notes.txt")),
                  File("A", 1, Path("cat/a.jpg")), File("BB", 1, Path("cat/sub/b.JPG"))});
}

// Shuffled: every file once, in a new order each traversal, the same
// orders again for the same seed.
TEST_F(LabelledFilesTest, ShufflesEachTraversal) {
  for (int i = 0; i < 20; ++i) WriteFile(dir_, StrCat("cat/many", i, ".jpg"), StrCat(i));
  auto paths = [](const std::vector<Element>& elements) {
    std::vector<std::string> out;
    for (const Element& e : elements) out.emplace_back(e[2].scalar<TString>());
    return out;
  };
  LabelledFilesOptions options = Options();
  options.shuffle = true;
  options.seed = 7;
  const DatasetPtr dataset = Build(Pipeline::LabelledFiles(options));
  const std::vector<std::string> first = paths(Collect(dataset));
  const std::vector<std::string> second = paths(Collect(dataset));
  EXPECT_NE(first, second);
  std::vector<std::string> sorted = first;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(sorted, paths(Collect(Pipeline::LabelledFiles(Options()))));
  const DatasetPtr again = Build(Pipeline::LabelledFiles(options));
  EXPECT_EQ(paths(Collect(again)), first);
  EXPECT_EQ(paths(Collect(again)), second);
}

TEST_F(LabelledFilesTest, InvalidArguments) {
  auto with = [&](auto change) {
    LabelledFilesOptions options = Options();
    change(options);
    return Pipeline::LabelledFiles(options);
  };
  ExpectError(with([&](LabelledFilesOptions& o) { o.directory = Path("missing"); }), StatusCode::kNotFound,
              "labelled_files: directory '" + Path("missing") + "' does not exist");
  ExpectError(with([&](LabelledFilesOptions& o) { o.directory = Path("outside.jpg"); }), StatusCode::kInvalidArgument,
              "is not a directory");
  ExpectError(with([](LabelledFilesOptions& o) { o.class_names = {"../cat"}; }), StatusCode::kInvalidArgument,
              "labelled_files: class name '../cat' is not a subdirectory's name");
  ExpectError(with([](LabelledFilesOptions& o) {
                o.class_names = {"cat", "bird"};
              }),
              StatusCode::kNotFound, "labelled_files: class 'bird' has no subdirectory");
  ExpectError(with([](LabelledFilesOptions& o) { o.extensions = {".gif"}; }), StatusCode::kNotFound,
              "labelled_files: no file with one of the extensions in the 2 class directories");
  ExpectError(with([](LabelledFilesOptions& o) { o.num_parallel_reads = 0; }), StatusCode::kInvalidArgument,
              "num_parallel_reads must be >= 1 or autotune (-1), got 0");
  ExpectError(with([](LabelledFilesOptions& o) { o.max_file_bytes = 0; }), StatusCode::kInvalidArgument,
              "max_file_bytes must be >= 1");
  ExpectError(with([](LabelledFilesOptions& o) { o.num_shards = 0; }), StatusCode::kInvalidArgument,
              "labelled_files: shard_index must be in [0, num_shards) and num_shards >= 1, got shard 0 of 0");
  ExpectError(with([](LabelledFilesOptions& o) {
                o.num_shards = 2;
                o.shard_index = 2;
              }),
              StatusCode::kInvalidArgument, "got shard 2 of 2");
  ExpectError(with([](LabelledFilesOptions& o) { o.shard_index = -1; }), StatusCode::kInvalidArgument,
              "got shard -1 of 1");
}

// Shard i of n holds the listing's positions i, i + n, ...: the shards
// partition the files, each shuffled within itself; a shard past the
// files is empty; the shard survives a spec round trip.
TEST_F(LabelledFilesTest, ShardsDealTheListing) {
  const std::vector<Element> all = Collect(Build(Pipeline::LabelledFiles(Options())));
  ASSERT_EQ(all.size(), 3u);
  for (int64_t n : {1, 2, 3, 5}) {
    for (int64_t i = 0; i < n; ++i) {
      LabelledFilesOptions options = Options();
      options.num_shards = n;
      options.shard_index = i;
      std::vector<Element> expected;
      for (size_t k = static_cast<size_t>(i); k < all.size(); k += static_cast<size_t>(n)) expected.push_back(all[k]);
      const DatasetPtr shard = Build(Pipeline::LabelledFiles(options));
      EXPECT_EQ(shard->cardinality(), static_cast<int64_t>(expected.size())) << i << " of " << n;
      ExpectProduces(Pipeline::LabelledFiles(options), expected);
      options.shuffle = true;
      options.seed = 5;
      const DatasetPtr shuffled = Build(Pipeline::LabelledFiles(options));
      std::vector<std::string> got, want;
      for (const Element& e : Collect(shuffled)) got.emplace_back(e[2].scalar<TString>());
      for (const Element& e : expected) want.emplace_back(e[2].scalar<TString>());
      std::ranges::sort(got);
      std::ranges::sort(want);
      EXPECT_EQ(got, want) << i << " of " << n;
      const std::string text = SpecToText(Ok(DatasetToSpec(*shuffled)));
      if (n > 1) EXPECT_NE(text.find(StrCat("num_shards: ", n)), std::string::npos) << text;
      ExpectSameResults(CollectResults(Ok(DatasetFromSpec(Ok(ParseSpecText(text))))),
                        CollectResults(Build(Pipeline::LabelledFiles(options))), "spec round trip");
    }
  }
}

// A file over max_file_bytes, or gone since the listing, is that element's
// error naming the path; the next file follows.
TEST_F(LabelledFilesTest, FileErrorsAreElementErrors) {
  LabelledFilesOptions options = Options();
  options.max_file_bytes = 2;
  const DatasetPtr dataset = Build(Pipeline::LabelledFiles(options));
  std::filesystem::remove(Path("cat/sub/b.JPG"));
  const std::vector<Result<Element>> results = CollectResults(dataset);
  ASSERT_EQ(results.size(), 3u);
  EXPECT_TRUE(results[0]->Equals(File("A", 0, Path("cat/a.jpg"))));
  EXPECT_EQ(results[1].status().code(), StatusCode::kNotFound) << results[1].status();
  EXPECT_NE(results[1].status().message().find(Path("cat/sub/b.JPG")), std::string::npos) << results[1].status();
  EXPECT_EQ(results[2].status().code(), StatusCode::kResourceExhausted) << results[2].status();
  EXPECT_NE(results[2].status().message().find("labelled_files: '" + Path("dog/c.png") +
                                               "' is larger than max_file_bytes (2)"),
            std::string::npos)
      << results[2].status();
}

TEST_F(LabelledFilesTest, SpecRoundTripAndResume) {
  LabelledFilesOptions options = Options();
  options.shuffle = true;
  options.seed = 3;
  options.class_names = {"dog", "cat"};
  const DatasetPtr dataset = Build(Pipeline::LabelledFiles(options));
  const std::string text = SpecToText(Ok(DatasetToSpec(*dataset)));
  EXPECT_NE(text.find("labelled_files {"), std::string::npos) << text;
  ExpectSameResults(CollectResults(Ok(DatasetFromSpec(Ok(ParseSpecText(text))))), CollectResults(dataset),
                    "spec round trip");
  ExpectResumesEverywhere([options] { return Pipeline::LabelledFiles(options); });
}

TEST_F(LabelledFilesTest, EarlyDestruction) {
  LabelledFilesOptions options = Options();
  options.num_parallel_reads = kAutotune;
  ExpectEarlyDestructionIsClean(Build(Pipeline::LabelledFiles(options).Repeat().Prefetch(2)), 2);
}

}  // namespace
}  // namespace sluice
