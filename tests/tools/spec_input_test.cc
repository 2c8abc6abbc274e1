// The `sluice` CLI on hostile spec files: files without end or that can't be
// read, and graphs deeper than kMaxGraphDepth. Each is a one-line error and
// exit code 1, never a hang or a crash.

#include <fstream>

#include "sluice/dataset/dataset.h"
#include "sluice/dataset/pipeline_spec_io.h"
#include "sluice/tests/tools/cli_runner.h"

namespace sluice {
namespace {

TEST(CliSpecInputTest, FileWithoutEndStopsAtTheCap) {
  const CliResult result = RunCli("run /dev/zero", /*capture_stderr=*/true);
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_EQ(result.lines, (Lines{StrCat("sluice: InvalidArgument: cannot parse pipeline spec: file '/dev/zero' is "
                                        "larger than the limit of ",
                                        kMaxSpecBytes, " bytes (kMaxSpecBytes)")}));
}

TEST(CliSpecInputTest, ReadErrorIsReported) {
  const CliResult result = RunCli("run /proc/self/mem", /*capture_stderr=*/true);
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_EQ(result.lines, (Lines{"sluice: InvalidArgument: cannot read pipeline spec file '/proc/self/mem' at byte "
                                 "offset 0: Input/output error"}));
}

TEST(CliSpecInputTest, DeepGraphsAreErrors) {
  std::string takes = "ops { range { stop: 3 } }\n";
  for (int i = 0; i < 100'000; ++i) takes += "ops { take { count: 1 } }\n";
  const CliResult chain = RunCli("describe " + WriteSpec("takes.pbtxt", takes), /*capture_stderr=*/true);
  EXPECT_EQ(chain.exit_code, 1);
  EXPECT_EQ(chain.lines, (Lines{StrCat("sluice: InvalidArgument: ops[", kMaxGraphDepth, "] (take): take: the graph "
                                       "would be ", kMaxGraphDepth + 1, " datasets deep, above the limit of ",
                                       kMaxGraphDepth, " (kMaxGraphDepth)")}));

  std::string nested;
  for (int i = 0; i < 5'000; ++i) nested += "ops { range { stop: 1 } } ops { concatenate { other { ";
  nested += "ops { range { stop: 1 } }";
  for (int i = 0; i < 5'000; ++i) nested += " } } }";
  const std::string path = WriteSpec("nested.pbtxt", nested);
  const CliResult parse = RunCli("run " + path, /*capture_stderr=*/true);
  EXPECT_EQ(parse.exit_code, 1);
  ASSERT_EQ(parse.lines.size(), 1u);
  EXPECT_TRUE(parse.lines[0].starts_with("sluice: InvalidArgument: cannot parse pipeline spec: " + path))
      << parse.lines[0];
  EXPECT_NE(parse.lines[0].find("recursion limit"), std::string::npos) << parse.lines[0];
}

}  // namespace
}  // namespace sluice
