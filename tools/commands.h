// The `sluice` command-line tool's subcommands. Each is a function over its
// parsed arguments, listed once, with its help text, in the table in
// sluice_main.cc (adding a command is an entry there plus its declaration
// here).
// Thread safety: commands run on the main thread and write to stdout.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "sluice/core/status.h"

namespace sluice::cli {

// A command's arguments, after the dispatcher checked them against the
// command's table entry (count of positionals, known flags).
struct CommandArgs {
  std::vector<std::string> positional;
  std::map<std::string, std::string> flags;  // "--take" -> "5"
  // A repeatable flag's values, in the order given ("--allow-root" -> dirs).
  std::map<std::string, std::vector<std::string>> repeated;
};

// Writes the command's output to std::cout (tools/stdout_writer.h). An
// error is printed by the dispatcher as "sluice: <status>" with exit status
// 1, as is a failed write to stdout.
using CommandFn = Status (*)(const CommandArgs& args);

// sluice run SPEC.pbtxt [--take N]: one JSON object per element per line.
Status RunCommand(const CommandArgs& args);
// sluice profile SPEC.pbtxt [--seconds S] [--trace FILE] [--json FILE]:
// traverses the pipeline repeatedly for S seconds (default 5) under the
// profiler and prints the per-stage table and the bottleneck verdict
// (dataset/profiler.h); optionally writes the trace events and JSON report.
Status ProfileCommand(const CommandArgs& args);
// sluice describe SPEC.pbtxt: the graph with params, specs and cardinality.
Status DescribeCommand(const CommandArgs& args);
// sluice save SPEC.pbtxt DIR [--compression C] [--shards N]: writes the
// pipeline's elements as a snapshot that a load op reads (dataset/save.h).
Status SaveCommand(const CommandArgs& args);
// sluice demo [--epochs E] [--dir DIR]: the end-to-end training job on
// generated data (examples/train_demo.h), in a directory that is new, empty
// or made by an earlier demo (tools/demo_command.cc).
Status DemoCommand(const CommandArgs& args);
// sluice train JOB.pbtxt [--resume]: a training job from its spec
// (model/job.h), one progress line per epoch (tools/train_command.cc).
Status TrainCommand(const CommandArgs& args);
// sluice predict BUNDLE FILE... [--lines]: an exported model with its
// preprocessing given raw inputs from files, one JSON line of outputs per
// input (tools/predict_command.cc).
Status PredictCommand(const CommandArgs& args);
// sluice tfrecord inspect FILE... | verify GLOB... | write --input F --output F:
// look into, check (non-zero exit on damage) and make TFRecord files.
Status TFRecordCommand(const CommandArgs& args);
// The data service's roles (tools/service_commands.cc), each running until
// SIGINT or SIGTERM: sluice dispatcher --port P --work-dir D, sluice worker
// --dispatcher HOST:P [--port Q] [--allow-root DIR]..., and sluice serve SPEC
// (a dispatcher and a worker in one process, the spec registered; with
// --mpi, one rank of a whole service under mpirun).
Status DispatcherCommand(const CommandArgs& args);
Status WorkerCommand(const CommandArgs& args);
Status ServeCommand(const CommandArgs& args);

}  // namespace sluice::cli
