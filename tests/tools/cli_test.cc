// Runs the built `sluice` binary on the example specs (from the repository
// root, the tests' working directory) and checks its exact output.

#include <filesystem>
#include <fstream>
#include <map>

#include "sluice/tests/tools/cli_runner.h"

namespace sluice {
namespace {

TEST(CliRunTest, RangeMapFilterBatch) {
  const CliResult result = RunCli("run examples/specs/range_map_filter_batch.pbtxt");
  EXPECT_EQ(result.exit_code, 0);
  EXPECT_EQ(result.lines, (Lines{
                              R"({"0": [2, 2.5, 3]})",
                              R"({"0": [3.5, 4, 4.5]})",
                              R"({"0": [5, 5.5]})",
                          }));
}

TEST(CliRunTest, TFRecordFilesParsedAsExamples) {
  const CliResult result = RunCli("run examples/specs/tfrecord_penguins.pbtxt --take 1");
  EXPECT_EQ(result.exit_code, 0);
  EXPECT_EQ(result.lines,
            (Lines{R"({"species": [0, 0, 0, 0], "body_mass_g": [0.256944448, 0.548611104, 0.305555552, 0.25], )"
                   R"("culmen_length_mm": [0.24727273, 0.25818181, 0.236363634, 0.203636363], )"
                   R"("island": ["unknown", "unknown", "unknown", "unknown"]})"}));
}

TEST(CliRunTest, SlicesShufflePaddedBatch) {
  const CliResult result = RunCli("run examples/specs/slices_shuffle_padded_batch.pbtxt");
  EXPECT_EQ(result.exit_code, 0);
  // The seed fixes the order; every run prints the same batches.
  EXPECT_EQ(result.lines,
            (Lines{
                R"({"tokens": [[1, 2, -1, -1], [7, 8, -1, -1]], "label": [[1, 0, 0], [0, 1, 0]]})",
                R"({"tokens": [[5, 6, -1, -1], [9, 10, -1, -1]], "label": [[0, 0, 1], [1, 0, 0]]})",
                R"({"tokens": [[3, 4, -1, -1]], "label": [[0, 1, 0]]})",
            }));
}

TEST(CliRunTest, InterleaveRanges) {
  const CliResult result = RunCli("run examples/specs/interleave_ranges.pbtxt");
  EXPECT_EQ(result.exit_code, 0);
  EXPECT_EQ(result.lines, (Lines{
                              R"({"0": 0})",
                              R"({"0": 0})",
                              R"({"0": 10})",
                              R"({"0": 0})",
                              R"({"0": 10})",
                              R"({"0": 20})",
                              R"({"0": 0})",
                              R"({"0": 10})",
                              R"({"0": 20})",
                              R"({"0": 30})",
                          }));
}

TEST(CliRunTest, ZipConcatenate) {
  const CliResult result = RunCli("run examples/specs/zip_concatenate.pbtxt");
  EXPECT_EQ(result.exit_code, 0);
  EXPECT_EQ(result.lines, (Lines{
                              R"({"index": 100, "n": 0, "word": "zero"})",
                              R"({"index": 101, "n": 1, "word": "one"})",
                              R"({"index": 102, "n": 2, "word": "two"})",
                              R"({"index": 103, "n": 10, "word": "ten"})",
                          }));
}

TEST(CliRunTest, TakeStopsEarly) {
  const CliResult result = RunCli("run examples/specs/zip_concatenate.pbtxt --take 2");
  EXPECT_EQ(result.exit_code, 0);
  EXPECT_EQ(result.lines, (Lines{
                              R"({"index": 100, "n": 0, "word": "zero"})",
                              R"({"index": 101, "n": 1, "word": "one"})",
                          }));
  EXPECT_EQ(RunCli("run --take=0 examples/specs/zip_concatenate.pbtxt").lines, Lines{});
}

TEST(CliDescribeTest, PrintsTheGraph) {
  const CliResult result = RunCli("describe examples/specs/range_map_filter_batch.pbtxt");
  EXPECT_EQ(result.exit_code, 0);
  EXPECT_EQ(result.lines,
            (Lines{
                "batch(batch_size=3, drop_remainder=false) -> (float32[?]) cardinality=unknown",
                "  filter(predicate=compare(>= 2)) -> (float32[]) cardinality=unknown",
                "    map(fn=scale_shift(scale=0.5, shift=1)) -> (float32[]) cardinality=10",
                "      range(start=0, stop=10, step=1, dtype=int64) -> (int64[]) cardinality=10",
            }));
}

// save writes a snapshot that a spec's load reads back as the pipeline was.
TEST(CliSaveTest, ASavedPipelineLoadsBackTheSame) {
  const std::string dir = ::testing::TempDir() + "cli_test_saved";
  std::filesystem::remove_all(dir);
  const CliResult saved =
      RunCli("save examples/specs/range_map_filter_batch.pbtxt " + dir + " --compression gzip --shards 2");
  EXPECT_EQ(saved.exit_code, 0);
  EXPECT_EQ(saved.lines, Lines{"saved 3 elements to " + dir});
  const std::string spec = dir + ".pbtxt";
  std::ofstream(spec) << "ops { load { path: \"" << dir << "\" } }\n";
  EXPECT_EQ(RunCli("run " + spec).lines, RunCli("run examples/specs/range_map_filter_batch.pbtxt").lines);
  const CliResult bad = RunCli("save examples/specs/range_map_filter_batch.pbtxt " + dir + " --compression lz4",
                               /*capture_stderr=*/true);
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_EQ(bad.lines, Lines{"sluice: InvalidArgument: --compression expects none, zlib or gzip, got 'lz4'"});
  std::filesystem::remove_all(dir);
  std::filesystem::remove(spec);
}

// --shard-func: each element's shard from an expression; load reads shard by shard.
TEST(CliSaveTest, AShardFuncSavesShardByShard) {
  const std::string dir = ::testing::TempDir() + "cli_test_sharded";
  std::filesystem::remove_all(dir);
  const std::string input = dir + "-input.pbtxt";
  std::ofstream(input) << "ops { range { stop: 5 } }\n";
  const CliResult saved = RunCli("save " + input + " " + dir + " --shard-func '`0` % 2'");
  EXPECT_EQ(saved.exit_code, 0);
  EXPECT_EQ(saved.lines, Lines{"saved 5 elements to " + dir});
  const std::string spec = dir + ".pbtxt";
  std::ofstream(spec) << "ops { load { path: \"" << dir << "\" } }\n";
  EXPECT_EQ(RunCli("run " + spec).lines, (Lines{R"({"0": 0})", R"({"0": 2})", R"({"0": 4})", R"({"0": 1})", R"({"0": 3})"}));
  const CliResult bad = RunCli("save " + input + " " + dir + " --shard-func '`0` - 1'", /*capture_stderr=*/true);
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_EQ(bad.lines, Lines{"sluice: InvalidArgument: save to " + dir + ": element 0: shard index -1 is not 0 to 4095"});
  std::filesystem::remove_all(dir);
  std::filesystem::remove(spec);
  std::filesystem::remove(input);
}

TEST(CliErrorTest, UsageErrorsExitWithTwo) {
  const CliResult help = RunCli("--help");
  EXPECT_EQ(help.exit_code, 0);
  ASSERT_FALSE(help.lines.empty());
  EXPECT_EQ(help.lines[0], "usage: sluice <command> [arguments]");
  EXPECT_EQ(RunCli("").exit_code, 2);

  const CliResult unknown = RunCli("frobnicate", /*capture_stderr=*/true);
  EXPECT_EQ(unknown.exit_code, 2);
  ASSERT_GE(unknown.lines.size(), 2u);
  EXPECT_EQ(unknown.lines[0], "sluice: unknown command 'frobnicate'");
  EXPECT_EQ(unknown.lines[1], "usage: sluice <command> [arguments]");

  EXPECT_EQ(RunCli("run", /*capture_stderr=*/true).lines,
            (Lines{"sluice run: expected 1 argument(s), got 0", "usage: sluice run SPEC.pbtxt [--take N]",
                   "(sluice run --help describes the flags)"}));
  EXPECT_EQ(RunCli("run a.pbtxt --limit 3", /*capture_stderr=*/true).lines,
            (Lines{"sluice run: unknown flag --limit", "usage: sluice run SPEC.pbtxt [--take N]",
                   "(sluice run --help describes the flags)"}));
  EXPECT_EQ(RunCli("run a.pbtxt --take", /*capture_stderr=*/true).exit_code, 2);
  // An empty value and a flag given twice are usage errors too.
  const CliResult empty = RunCli("demo --dir=", /*capture_stderr=*/true);
  EXPECT_EQ(empty.exit_code, 2);
  ASSERT_FALSE(empty.lines.empty());
  EXPECT_EQ(empty.lines[0], "sluice demo: --dir needs a value, got ''");
  const CliResult twice = RunCli("run a.pbtxt --take 1 --take=2", /*capture_stderr=*/true);
  EXPECT_EQ(twice.exit_code, 2);
  ASSERT_FALSE(twice.lines.empty());
  EXPECT_EQ(twice.lines[0], "sluice run: --take is given twice");
}

std::string Text(const Lines& lines) {
  std::string text;
  for (const std::string& line : lines) text += line + "\n";
  return text;
}

TEST(CliHelpTest, EveryCommandExplainsItsFlagsWithAnExample) {
  const std::map<std::string, Lines> flags = {
      {"run", {"--take N"}},
      {"profile", {"--seconds S", "--trace FILE", "--json FILE", "--progress auto|always|never"}},
      {"describe", {}},
      {"save", {"--compression C", "--shards N", "--shard-func EXPR"}},
      {"demo", {"--epochs E", "--dir DIR"}},
      {"train", {"--resume"}},
      {"tfrecord",
       {"--records N", "--compression auto|none|zlib|gzip", "--input FILE", "--output FILE", "--format csv|jsonl",
        "--progress auto|always|never"}},
      {"dispatcher",
       {"--port P", "--work-dir D", "--journal-compaction-bytes N", "--bind ADDR", "--token-file F", "--allow-root DIR"}},
      {"worker",
       {"--dispatcher HOST:P", "--port Q", "--allow-root DIR", "--bind ADDR", "--advertise HOST", "--token-file F"}},
      {"serve", {"--port P", "--allow-root DIR", "--token-file F"}},
  };
  const CliResult top = RunCli("--help");
  EXPECT_EQ(top.exit_code, 0);
  const std::string top_text = Text(top.lines);
  EXPECT_NE(top_text.find("exit status: 0 success; 1 "), std::string::npos) << top_text;
  for (const auto& [command, command_flags] : flags) {
    for (const std::string& form :
         std::vector<std::string>{command + " --help", command + " -h", "help " + command, command + " x -h"}) {
      const CliResult help = RunCli(form);
      EXPECT_EQ(help.exit_code, 0) << form;
      ASSERT_FALSE(help.lines.empty()) << form;
      EXPECT_TRUE(help.lines[0].starts_with("usage: sluice " + command + " ")) << form << ": " << help.lines[0];
      const std::string text = Text(help.lines);
      EXPECT_NE(text.find("    sluice " + command), std::string::npos) << form << ": no example in\n" << text;
      for (const std::string& flag : command_flags) {
        EXPECT_NE(text.find("    " + flag + "\n"), std::string::npos) << form << ": " << flag << " in\n" << text;
        EXPECT_NE(top_text.find("    " + flag + "\n"), std::string::npos) << "--help: " << flag;
      }
    }
  }
  // `run -h` is the help, not a spec file named -h.
  EXPECT_EQ(RunCli("run -h", /*capture_stderr=*/true).lines, Lines{});
}

TEST(CliErrorTest, NoExceptionEndsTheCli) {
  // std::filesystem refuses to create the directory: an error naming it.
  const CliResult proc = RunCli("demo --dir /proc/x", /*capture_stderr=*/true);
  EXPECT_EQ(proc.exit_code, 1);
  ASSERT_EQ(proc.lines.size(), 1u) << Text(proc.lines);
  EXPECT_TRUE(proc.lines[0].starts_with("sluice: FailedPrecondition: demo: cannot create '/proc/x': "))
      << proc.lines[0];
  // A symbolic link to itself makes std::filesystem::status throw.
  const std::string loops = ::testing::TempDir() + "cli_test_loops";
  std::filesystem::remove_all(loops);
  std::filesystem::create_directories(loops);
  std::filesystem::create_symlink("loop", loops + "/loop");
  // verify reports the file on its BAD line (stdout) and fails on stderr.
  const CliResult loop = RunCli("tfrecord verify '" + loops + "/*'", /*capture_stderr=*/true);
  EXPECT_EQ(loop.exit_code, 1);
  ASSERT_EQ(loop.lines.size(), 1u) << Text(loop.lines);
  EXPECT_TRUE(loop.lines[0].starts_with("sluice: ")) << loop.lines[0];
  const CliResult loop_report = RunCli("tfrecord verify '" + loops + "/*'");
  EXPECT_EQ(loop_report.exit_code, 1);
  ASSERT_EQ(loop_report.lines.size(), 1u) << Text(loop_report.lines);
  EXPECT_TRUE(loop_report.lines[0].starts_with("BAD " + loops + "/loop: ")) << loop_report.lines[0];
  EXPECT_NE(loop_report.lines[0].find("Too many levels of symbolic links"), std::string::npos)
      << loop_report.lines[0];
  const CliResult mem = RunCli("run /proc/self/mem", /*capture_stderr=*/true);
  EXPECT_EQ(mem.exit_code, 1);
  ASSERT_FALSE(mem.lines.empty());
  EXPECT_TRUE(mem.lines[0].starts_with("sluice: ")) << mem.lines[0];
  EXPECT_EQ(Text(mem.lines).find("terminate called"), std::string::npos);
}

TEST(CliDemoTest, UsesOnlyANewEmptyOrItsOwnDirectory) {
  const std::string file = ::testing::TempDir() + "cli_test_demo_file";
  std::ofstream(file) << "keep me\n";
  const CliResult on_file = RunCli("demo --epochs 1 --dir " + file, /*capture_stderr=*/true);
  EXPECT_EQ(on_file.exit_code, 1);
  EXPECT_EQ(on_file.lines, (Lines{"sluice: FailedPrecondition: demo: --dir '" + file +
                                  "' exists and is not a directory; give a new or empty directory"}));
  std::ifstream kept(file);
  std::string contents;
  std::getline(kept, contents);
  EXPECT_EQ(contents, "keep me");

  const std::string dir = ::testing::TempDir() + "cli_test_demo_dir";
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/mine.txt") << "keep me too\n";
  const CliResult on_dir = RunCli("demo --epochs 1 --dir " + dir, /*capture_stderr=*/true);
  EXPECT_EQ(on_dir.exit_code, 1);
  EXPECT_EQ(on_dir.lines, (Lines{"sluice: FailedPrecondition: demo: --dir '" + dir +
                                 "' is not empty and was not made by sluice demo (it has no .sluice-demo file); "
                                 "give a new or empty directory"}));
  EXPECT_TRUE(std::filesystem::exists(dir + "/mine.txt"));
  // A directory the demo made is its own to replace.
  const std::string own = ::testing::TempDir() + "cli_test_demo_own";
  std::filesystem::remove_all(own);
  EXPECT_EQ(RunCli("demo --epochs 1 --dir " + own).exit_code, 0);
  EXPECT_TRUE(std::filesystem::exists(own + "/.sluice-demo"));
  std::ofstream(own + "/left_over.txt") << "from the last run\n";
  EXPECT_EQ(RunCli("demo --epochs 1 --dir " + own).exit_code, 0);
  EXPECT_FALSE(std::filesystem::exists(own + "/left_over.txt"));
  EXPECT_TRUE(std::filesystem::exists(own + "/exported_model"));
  EXPECT_EQ(RunCli("demo --epochs 0", /*capture_stderr=*/true).lines,
            (Lines{"sluice: InvalidArgument: --epochs expects a count from 1 to 1000, got '0'"}));
}

TEST(CliErrorTest, AFullStdoutIsAnError) {
  const std::string spec = "examples/specs/range_map_filter_batch.pbtxt";
  for (const std::string& command : std::vector<std::string>{
           "run " + spec, "describe " + spec, "profile " + spec + " --seconds 0.05", std::string("--help"),
           std::string("run --help"), "tfrecord inspect ../shared/testdata/tfrecord/ydf_toy.tfrecord.gz"}) {
    const CliResult full = RunCli(command, /*capture_stderr=*/true, "/dev/full");
    EXPECT_EQ(full.exit_code, 1) << command;
    EXPECT_EQ(full.lines, (Lines{"sluice: Internal: writing to stdout failed: No space left on device"})) << command;
  }
  // An endless pipeline stops at the first failed write.
  const std::string endless = WriteSpec("endless.pbtxt", "ops { range { stop: 10 } } ops { repeat { count: -1 } }");
  EXPECT_EQ(RunCli("run " + endless, /*capture_stderr=*/true, "/dev/full").exit_code, 1);
}

TEST(CliRunTest, JsonLinesAreValidJson) {
  // A name with quotes, text that is UTF-8 and text that is not, NaN and
  // infinities.
  const std::string spec = WriteSpec("json.pbtxt", R"pb(
    ops {
      from_tensors {
        components { name: "say \"hi\"" tensor { dtype: "string" shape: [3]
                     string_values: ["caf\303\251", "\377\376 raw", "tab\tquote\"back\\"] } }
        components { name: "f" tensor { dtype: "float32" shape: [3] float_values: [nan, inf, -inf] } }
      }
    }
  )pb");
  const CliResult out = RunCli("run " + spec);
  EXPECT_EQ(out.exit_code, 0);
  EXPECT_EQ(out.lines, (Lines{"{\"say \\\"hi\\\"\": [\"caf\xC3\xA9\", \"\\udcff\\udcfe raw\", "
                              "\"tab\\u0009quote\\\"back\\\\\"], \"f\": [\"nan\", \"inf\", \"-inf\"]}"}));
  const CliResult parsed = RunCli(
      "run " + spec +
      " | /usr/bin/python3 -c 'import json,sys; [print(list(json.loads(l).items())) for l in sys.stdin]'");
  EXPECT_EQ(parsed.exit_code, 0);
  EXPECT_EQ(parsed.lines, (Lines{"[('say \"hi\"', ['caf\xC3\xA9', '\\udcff\\udcfe raw', 'tab\\tquote\"back\\\\']), "
                                 "('f', ['nan', 'inf', '-inf'])]"}));
}

TEST(CliErrorTest, FailuresExitWithOne) {
  const CliResult missing = RunCli("run no/such/spec.pbtxt", /*capture_stderr=*/true);
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_EQ(missing.lines,
            (Lines{"sluice: NotFound: pipeline spec file 'no/such/spec.pbtxt' does not exist"}));

  const CliResult bad_take =
      RunCli("run examples/specs/zip_concatenate.pbtxt --take -3", /*capture_stderr=*/true);
  EXPECT_EQ(bad_take.exit_code, 1);
  EXPECT_EQ(bad_take.lines,
            (Lines{"sluice: InvalidArgument: --take expects a count >= 0, got '-3'"}));

  // A spec that parses but does not build: the error names the op.
  const CliResult bad_spec = RunCli(
      "describe " + WriteSpec("bad_batch.pbtxt", "ops { range { stop: 3 } } ops { batch { } }"),
      /*capture_stderr=*/true);
  EXPECT_EQ(bad_spec.exit_code, 1);
  EXPECT_EQ(bad_spec.lines, (Lines{"sluice: InvalidArgument: ops[1] (batch): batch: Batch size "
                                   "must be greater than zero (got 0)."}));

  const std::string unparsable = WriteSpec("unparsable.pbtxt", "ops {\n  range { stop: }\n}\n");
  const CliResult parse_error = RunCli("run " + unparsable, /*capture_stderr=*/true);
  EXPECT_EQ(parse_error.exit_code, 1);
  EXPECT_EQ(parse_error.lines, (Lines{"sluice: InvalidArgument: cannot parse pipeline spec: " +
                                      unparsable + ":2:17: Expected integer, got: }"}));
}

TEST(CliErrorTest, AGlobInAMissingDirectoryNamesIt) {
  const CliResult result = RunCli(
      "run " + WriteSpec("missing_dir.pbtxt", R"pb(ops { list_files { patterns: ["/no/such/dir/*.tfr"] } })pb"),
      /*capture_stderr=*/true);
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_EQ(result.lines, (Lines{"sluice: NotFound: ops[0] (list_files): list_files: cannot expand pattern "
                                 "'/no/such/dir/*.tfr': directory '/no/such/dir' could not be read: No such file or "
                                 "directory"}));
}

TEST(CliErrorTest, ElementErrorStopsTheRunAfterTheElementsBefore) {
  // range(0, 2) reshapes to [2, 1]; range(0, 3) cannot.
  const std::string spec = WriteSpec("element_error.pbtxt", R"pb(
    ops { range { start: 2 stop: 4 } }
    ops {
      interleave {
        function {
          ops { element_source { kind: RANGE } }
          ops { batch { batch_size: 10 } }
          ops { map { fn { reshape { shape: [ 2, -1 ] } } } }
        }
        cycle_length: 1
      }
    }
  )pb");
  const CliResult out = RunCli("run " + spec);
  EXPECT_EQ(out.exit_code, 1);
  EXPECT_EQ(out.lines, (Lines{R"({"0": [[0], [1]]})"}));
  EXPECT_EQ(RunCli("run " + spec, /*capture_stderr=*/true).lines,
            (Lines{"sluice: InvalidArgument: element 1: map: reshape([2, -1]): component 0: cannot "
                   "reshape a tensor of shape [3] (3 elements) to [2, -1]"}));
}

// Sizes and values from a spec: never a crash, an abort or a wrapped value.
TEST(CliHostileInputTest, SizesAndValuesFromASpec) {
  // A batch size of 2^61 on 20 elements is one batch of 20.
  const CliResult huge_batch = RunCli(
      "run " + WriteSpec("huge_batch.pbtxt", "ops { range { stop: 20 } } ops { batch { batch_size: 2305843009213693952 } }"));
  EXPECT_EQ(huge_batch.exit_code, 0);
  EXPECT_EQ(huge_batch.lines,
            (Lines{R"({"0": [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19]})"}));

  // range(INT64_MIN, INT64_MAX, 2^62) has 4 elements.
  const CliResult extreme_range = RunCli("run " + WriteSpec("extreme_range.pbtxt",
      "ops { range { start: -9223372036854775808 stop: 9223372036854775807 step: 4611686018427387904 } }"));
  EXPECT_EQ(extreme_range.exit_code, 0);
  EXPECT_EQ(extreme_range.lines, (Lines{R"({"0": -9223372036854775808})", R"({"0": -4611686018427387904})",
                                        R"({"0": 0})", R"({"0": 4611686018427387904})"}));

  // Each of these fails with its error on stderr and exit code 1.
  const struct {
    std::string name;
    std::string spec;
    std::string error;  // the start of the one line on stderr
  } failures[] = {
      {"batch_above_budget.pbtxt",
       "ops { range { stop: 9223372036854775807 } } ops { batch { batch_size: 1000000000000 } }",
       "sluice: ResourceExhausted: element 0: batch: component 0 of a batch of 1000000000000 rows: a tensor of "
       "int64[1000000000000] takes 8000000000000 bytes, above the RAM budget"},
      {"padded_dims_overflow.pbtxt",
       "ops { range { stop: 3 } } ops { batch { batch_size: 2 } } "
       "ops { padded_batch { batch_size: 2 padded_shapes { dims: 2305843009213693952 } } }",
       "sluice: InvalidArgument: ops[2] (padded_batch): padded_batch: padded shape [2305843009213693952] for "
       "component 0: shape [2305843009213693952] of int64 takes more bytes than fit in int64"},
      {"padded_batch_above_budget.pbtxt",
       "ops { range { stop: 3 } } ops { batch { batch_size: 2 } } "
       "ops { padded_batch { batch_size: 2 padded_shapes { dims: 1000000000000 } } }",
       "sluice: ResourceExhausted: element 0: padded_batch: component 0: a batch of 2 elements padded to "
       "[1000000000000] takes at least 16000000000000 bytes, above the RAM budget"},
      {"one_hot_overflow.pbtxt", "ops { range { stop: 3 } } ops { map { fn { one_hot { depth: 4611686018427387904 } } } }",
       "sluice: InvalidArgument: ops[1] (map): map: one_hot(depth=4611686018427387904, float32): component 0: shape "
       "[4611686018427387904] of float32 takes more bytes than fit in int64"},
      {"int32_out_of_range.pbtxt",
       "ops { from_tensors { components { tensor { dtype: \"int32\" int_values: 4294967297 } } } }",
       "sluice: InvalidArgument: ops[0] (from_tensors): components[0]: tensor constant int32[]: int_values[0] = "
       "4294967297 is out of range for int32 [-2147483648, 2147483647]"},
  };
  for (const auto& f : failures) {
    SCOPED_TRACE(f.name);
    const CliResult result = RunCli("run " + WriteSpec(f.name, f.spec) + " --take 3", /*capture_stderr=*/true);
    EXPECT_EQ(result.exit_code, 1);
    ASSERT_EQ(result.lines.size(), 1u);
    EXPECT_EQ(result.lines[0].substr(0, f.error.size()), f.error);
  }
}

TEST(CliProfileTest, PrintsTheTableAndVerdictAndWritesTraceAndJson) {
  const std::string trace = ::testing::TempDir() + "cli_test_profile_trace.json";
  const std::string json = ::testing::TempDir() + "cli_test_profile_report.json";
  const CliResult result = RunCli("profile examples/specs/range_map_filter_batch.pbtxt --seconds 0.3 --trace " +
                                  trace + " --json=" + json);
  EXPECT_EQ(result.exit_code, 0);
  std::string text;
  for (const std::string& line : result.lines) text += line + "\n";
  for (const char* expected : {"[0] batch", "[1] filter", "[2] map", "[3] range", "Verdict: ", "Remedy: "}) {
    EXPECT_NE(text.find(expected), std::string::npos) << expected << " in\n" << text;
  }
  std::ifstream trace_file(trace);
  std::string trace_text((std::istreambuf_iterator<char>(trace_file)), std::istreambuf_iterator<char>());
  EXPECT_NE(trace_text.find("\"traceEvents\""), std::string::npos);
  std::ifstream json_file(json);
  std::string json_text((std::istreambuf_iterator<char>(json_file)), std::istreambuf_iterator<char>());
  EXPECT_NE(json_text.find("\"verdict\""), std::string::npos);

  EXPECT_EQ(RunCli("profile examples/specs/range_map_filter_batch.pbtxt --seconds -1", true).exit_code, 1);
}

TEST(CliProfileTest, ShowsProgressOnlyWhenStderrIsATerminalOrForced) {
  const std::string profile = "profile examples/specs/range_map_filter_batch.pbtxt --seconds 0.2";
  EXPECT_EQ(RunCli(profile, /*capture_stderr=*/true).lines, Lines{});
  const CliResult forced = RunCli(profile + " --progress always", /*capture_stderr=*/true);
  EXPECT_EQ(forced.exit_code, 0);
  ASSERT_EQ(forced.lines.size(), 1u);
  EXPECT_TRUE(forced.lines[0].starts_with("\rprofile: 0/1 s, ")) << forced.lines[0];
  EXPECT_TRUE(forced.lines[0].ends_with(" \r")) << forced.lines[0];
}

TEST(CliProfileTest, NumericFlagsAreCheckedWhateverTheirSpelling) {
  for (const std::string& value : std::vector<std::string>{"inf", "nan", "1e400", "-0", "1e7", "2x"}) {
    const CliResult result =
        RunCli("profile examples/specs/range_map_filter_batch.pbtxt --seconds " + value, /*capture_stderr=*/true);
    EXPECT_EQ(result.exit_code, 1) << value;
    EXPECT_EQ(result.lines, (Lines{"sluice: InvalidArgument: --seconds expects a duration in seconds, > 0 and at "
                                   "most 1000000, got '" + value + "'"}));
  }
}

// The wall time is that of the whole run, for short traversals too.
TEST(CliProfileTest, WallTimeIsTheRunsDuration) {
  const CliResult result = RunCli("profile examples/specs/range_map_filter_batch.pbtxt --seconds 0.5");
  EXPECT_EQ(result.exit_code, 0);
  double wall_s = -1;
  for (const std::string& line : result.lines) {
    if (line.starts_with("wall time ")) wall_s = std::stod(line.substr(10));
  }
  EXPECT_GE(wall_s, 0.45) << Text(result.lines);
  EXPECT_LE(wall_s, 0.75) << Text(result.lines);
}

TEST(CliProfileTest, EnvironmentVariableProfilesAnyRun) {
  const std::string trace = ::testing::TempDir() + "cli_test_env_trace.json";
  setenv("SLUICE_PROFILE", "1", 1);
  setenv("SLUICE_PROFILE_TRACE", trace.c_str(), 1);
  const CliResult result = RunCli("run examples/specs/range_map_filter_batch.pbtxt", /*capture_stderr=*/true);
  unsetenv("SLUICE_PROFILE");
  unsetenv("SLUICE_PROFILE_TRACE");
  EXPECT_EQ(result.exit_code, 0);
  ASSERT_FALSE(result.lines.empty());
  EXPECT_EQ(result.lines[0], "sluice profile:");
  std::ifstream trace_file(trace);
  EXPECT_TRUE(trace_file.good());
}

// The demo's job as a spec (examples/jobs/demo.pbtxt), run by `sluice train`
// in the directory `sluice demo` wrote its data to, trains exactly as the
// demo does: the same validation accuracy.
TEST(CliTrainTest, TheDemoJobReachesTheDemosValidationAccuracy) {
  const std::string dir = ::testing::TempDir() + "cli_test_train_demo";
  const std::string job = (std::filesystem::current_path() / "examples/jobs/demo.pbtxt").string();
  std::filesystem::remove_all(dir);
  const CliResult demo = RunCli("demo --dir " + dir);
  ASSERT_EQ(demo.exit_code, 0);
  ASSERT_FALSE(demo.lines.empty());
  const std::string demo_accuracy = demo.lines.back();
  ASSERT_TRUE(demo_accuracy.starts_with("Validation accuracy ")) << demo_accuracy;

  const std::string train = "--help >/dev/null && cd " + dir + " && " + SLUICE_CLI_PATH + " train " + job;
  const CliResult trained = RunCli(train);
  ASSERT_EQ(trained.exit_code, 0);
  ASSERT_GE(trained.lines.size(), 7u);
  EXPECT_EQ(trained.lines.back(), "Trained 5 epochs");
  EXPECT_EQ(trained.lines[trained.lines.size() - 2], "Exported to job/exported_model");
  const std::string& last_epoch = trained.lines[trained.lines.size() - 3];
  ASSERT_TRUE(last_epoch.starts_with("epoch 5: ")) << last_epoch;
  const size_t at = last_epoch.find("val_accuracy ");
  ASSERT_NE(at, std::string::npos) << last_epoch;
  EXPECT_NEAR(std::stod(last_epoch.substr(at + 13)), std::stod(demo_accuracy.substr(20)), 1e-4)
      << last_epoch << " against the demo's " << demo_accuracy;
  EXPECT_TRUE(std::filesystem::exists(dir + "/job/logs"));

  // Run again: its checkpoints are there, so only --resume may use them.
  std::filesystem::remove_all(dir + "/job/exported_model");
  const CliResult refused = RunCli(train, /*capture_stderr=*/true);
  EXPECT_EQ(refused.exit_code, 1);
  ASSERT_FALSE(refused.lines.empty());
  EXPECT_TRUE(refused.lines.back().starts_with("sluice: FailedPrecondition: train: the checkpoint directory "
                                               "'job/checkpoints' already holds checkpoints"))
      << refused.lines.back();
  const CliResult resumed = RunCli(train + " --resume");
  EXPECT_EQ(resumed.exit_code, 0);
  EXPECT_EQ(resumed.lines, (Lines{"Resumed from job/checkpoints/ckpt-250.sluice (5 epochs done)",
                                  "All 5 epochs are done already", "Exported to job/exported_model",
                                  "Trained 5 epochs"}));
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace sluice
