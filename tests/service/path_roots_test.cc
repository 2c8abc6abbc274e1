#include "sluice/service/path_roots.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "sluice/dataset/pipeline_spec_io.h"
#include "temp_dir.h"

namespace sluice::service {
namespace {

class PathRootsTest : public ::testing::Test {
 protected:
  // The spec `text` with "ROOT" replaced by the allowed root.
  Status Check(std::string text) {
    for (size_t at = text.find("ROOT"); at != std::string::npos; at = text.find("ROOT")) {
      text.replace(at, 4, root_.path());
    }
    Result<spec::Pipeline> pipeline = ParseSpecText(text);
    EXPECT_TRUE(pipeline.ok()) << pipeline.status();
    if (!pipeline.ok()) return pipeline.status();
    return roots_.CheckSpec(*pipeline);
  }

  testing::TempDir root_;
  PathRoots roots_ = *PathRoots::Make({root_.path()});
};

MATCHER_P(RefusedNaming, text, "") {
  const Status& status = arg;
  *result_listener << status;
  return status.code() == StatusCode::kInvalidArgument && status.message().find(text) != std::string::npos;
}

TEST_F(PathRootsTest, FilesUnderTheRootsAreAccepted) {
  EXPECT_TRUE(Check(R"(ops { tfrecord { files: "ROOT/a.tfrecord" } })").ok());
  EXPECT_TRUE(Check(R"(ops { list_files { patterns: "ROOT/*.tfrecord" } }
                       ops { interleave { function { ops { element_source { kind: TFRECORD } } ops { take { count: 2 } } } } })")
                  .ok());
  EXPECT_TRUE(Check(R"(ops { list_files { patterns: "ROOT/*.tfrecord" } }
                       ops { flat_map { function { ops { element_source { kind: TFRECORD } } } } })")
                  .ok());
  EXPECT_TRUE(Check(R"(ops { load { path: "ROOT/snap" } })").ok());
  EXPECT_TRUE(Check(R"(ops { from_tensors { components { tensor { dtype: "string" string_values: "a" } } } }
                       ops { map { fn { lookup { vocabulary_file: "ROOT/vocab.txt" } } } })")
                  .ok());
}

TEST_F(PathRootsTest, EveryFileFieldOutsideTheRootsIsRefusedNamingItsPlace) {
  EXPECT_THAT(Check(R"(ops { tfrecord { files: "/etc/passwd" } })"), RefusedNaming("ops[0].tfrecord.files[0]"));
  EXPECT_THAT(Check(R"(ops { list_files { patterns: "/etc/*" } })"), RefusedNaming("outside the roots"));
  EXPECT_THAT(Check(R"(ops { load { path: "/etc" } })"), RefusedNaming("ops[0].load.path"));
  EXPECT_THAT(Check(R"(ops { from_tensors { components { tensor { dtype: "string" string_values: "a" } } } }
                       ops { map { fn { lookup { vocabulary_file: "/etc/passwd" } } } })"),
              RefusedNaming("ops[1].map.fn.lookup.vocabulary_file"));
  EXPECT_THAT(Check(R"(ops { from_tensors { components { tensor { dtype: "string" string_values: "a" } } } }
                       ops { map { fn { wordpiece { vocabulary_file: "/etc/passwd" } } } })"),
              RefusedNaming("wordpiece.vocabulary_file"));
  EXPECT_THAT(Check(R"(ops { tfrecord { files: "ROOT/../outside" } })"), RefusedNaming("'..'"));
}

TEST_F(PathRootsTest, NestedPipelinesAreChecked) {
  EXPECT_THAT(Check(R"(ops { range { stop: 3 } }
                       ops { zip { others { ops { tfrecord { files: "/etc/passwd" } } } } })"),
              RefusedNaming("ops[1].zip.others[0].ops[0].tfrecord.files[0]"));
  EXPECT_THAT(Check(R"(ops { sample_from_datasets { datasets { ops { range { stop: 3 } } }
                                                     datasets { ops { load { path: "/etc" } } } } })"),
              RefusedNaming("sample_from_datasets.datasets[1].ops[0].load.path"));
  EXPECT_THAT(Check(R"(ops { list_files { patterns: "ROOT/*" } }
                       ops { interleave { function { ops { element_source { kind: TFRECORD } }
                                                     ops { zip { others { ops { load { path: "/etc" } } } } } } } })"),
              RefusedNaming("load.path"));
}

TEST_F(PathRootsTest, WritingFilesIsRefused) {
  EXPECT_THAT(Check(R"(ops { range { stop: 3 } } ops { snapshot { path: "ROOT/snap" } })"),
              RefusedNaming("ops[1].snapshot.path names"));
}

TEST_F(PathRootsTest, FileNamesFromElementsOnlyComeStraightFromListFiles) {
  EXPECT_THAT(Check(R"(ops { from_tensors { components { tensor { dtype: "string" string_values: "/etc/passwd" } } } }
                       ops { interleave { function { ops { element_source { kind: TFRECORD } } } } })"),
              RefusedNaming("straight from a list_files source"));
  EXPECT_THAT(Check(R"(ops { list_files { patterns: "ROOT/*" } } ops { map { fn { select {} } } }
                       ops { interleave { function { ops { element_source { kind: TFRECORD } } } } })"),
              RefusedNaming("ops[2] (interleave)"));
  EXPECT_THAT(Check(R"(ops { from_tensors { components { tensor { dtype: "string" string_values: "/etc/passwd" } } } }
                       ops { flat_map { function { ops { element_source { kind: TFRECORD } } } } })"),
              RefusedNaming("ops[1] (flat_map)"));
  // Text, CSV and fixed-length record files named by elements are held to the same rule.
  for (const char* kind : {"TEXT_LINE", "CSV", "FIXED_LENGTH_RECORD"}) {
    EXPECT_THAT(Check(StrCat(R"(ops { from_tensors { components { tensor { dtype: "string" string_values: "/etc/passwd" } } } }
                       ops { interleave { function { ops { element_source { kind: )", kind, R"( } } } } })")),
                RefusedNaming(StrCat("a ", kind, " element_source reads files named by elements")));
    EXPECT_TRUE(Check(StrCat(R"(ops { list_files { patterns: "ROOT/*" } }
                       ops { interleave { function { ops { element_source { kind: )", kind, R"( } } } } })")).ok());
  }
  EXPECT_THAT(Check(R"(ops { text_line { files: "/etc/passwd" } })"), RefusedNaming("ops[0].text_line.files[0]"));
  EXPECT_THAT(Check(R"(ops { csv { files: "/etc/passwd" } })"), RefusedNaming("ops[0].csv.files[0]"));
  EXPECT_THAT(Check(R"(ops { fixed_length_record { files: "/etc/passwd" record_bytes: 1 } })"),
              RefusedNaming("ops[0].fixed_length_record.files[0]"));
  // Anywhere else (a nested interleave's function, after other ops) it is refused.
  EXPECT_THAT(Check(R"(ops { range { stop: 3 } }
                       ops { interleave { function { ops { element_source { kind: RANGE } }
                                                     ops { interleave { function { ops { element_source { kind: TFRECORD } } } } } } } })"),
              RefusedNaming("straight from a list_files source"));
}

}  // namespace
}  // namespace sluice::service
