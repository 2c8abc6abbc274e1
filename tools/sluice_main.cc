// sluice: runs and inspects pipeline specs. `sluice --help` describes every
// command and flag; each command lives in its own <name>_command.cc.
//
// Exit status: 0 when the command succeeded; 1 when it failed while running
// (an unreadable or invalid file, a flag value out of range, damage found,
// stdout not writable); 2 for a usage error (unknown command or flag, a flag
// without a value or given twice, the wrong number of arguments). No
// exception ends the program: one escaping a command becomes its error.

#include <cstdint>
#include <exception>
#include <iostream>
#include <span>
#include <string_view>
#include <vector>

#include "sluice/tools/commands.h"
#include "sluice/tools/stdout_writer.h"

namespace sluice::cli {
namespace {

struct Flag {
  std::string_view name;   // "--take"
  std::string_view value;  // "N", for the help; empty for a switch, which takes no value
  std::string_view help;
  bool repeatable = false;  // given any number of times (CommandArgs::repeated)
};

struct Command {
  std::string_view name;
  std::string_view arguments;  // for the usage line
  std::string_view summary;
  size_t min_positional;  // counts of positional arguments allowed
  size_t max_positional;
  std::vector<Flag> flags;
  std::vector<std::string_view> examples;
  CommandFn run;
};

// --progress, in the words of each command that has it.
constexpr std::string_view kProfileProgressHelp =
    "a status line on stderr while the profile runs (seconds, elements, elements/s, ETA), rewritten in place "
    "and erased at the end: auto (default) shows it when stderr is a terminal; always and never override that";
constexpr std::string_view kTFRecordProgressHelp =
    "verify, write: a status line on stderr while the work runs (files, records, bytes, bytes/s, ETA), "
    "rewritten in place and erased at the end: auto (default) shows it when stderr is a terminal; always and "
    "never override that";

// Flags the data-service commands share.
const Flag kBindFlag{"--bind", "ADDR",
                     "the address to listen on (default 127.0.0.1); any other needs a token (--token-file or "
                     "SLUICE_SERVICE_TOKEN)"};
const Flag kTokenFileFlag{"--token-file", "F",
                          "the shared secret peers must prove they hold, in a file only its owner may read "
                          "(default: SLUICE_SERVICE_TOKEN, else none)"};
const Flag kAllowRootFlag{"--allow-root", "DIR",
                          "a directory the specs' files must lie under; may be given again (default: the current "
                          "directory)",
                          /*repeatable=*/true};
const Flag kRowsPerSplitFlag{"--rows-per-split", "N",
                             "distributed_epoch: the rows of a range or from_slices source in each split, 0 to 2^62 "
                             "(default 0: a 64th of the source, at least 1); batches end with each split"};

const std::vector<Command>& Commands() {
  static const auto* commands = new std::vector<Command>{
      {"run",
       "SPEC.pbtxt [--take N]",
       "Prints the pipeline's elements, one JSON object per line, components by name. Strings are UTF-8 "
       "(a byte that is not valid UTF-8 is the escape \\udc80-\\udcff, Python's surrogateescape); NaN and "
       "infinities, which JSON cannot spell, are the strings \"nan\", \"inf\" and \"-inf\".",
       1,
       1,
       {{"--take", "N", "print at most N elements, a count >= 0 (default: all)"}},
       {"sluice run examples/specs/range_map_filter_batch.pbtxt --take 2"},
       RunCommand},
      {"profile",
       "SPEC.pbtxt [--seconds S] [--trace FILE] [--json FILE] [--progress auto|always|never]",
       "Traverses the pipeline again and again for S seconds under the profiler, then prints the graph, the "
       "per-stage table (calls, elements, rate, busy time, waits) and the verdict: the stage that limits "
       "throughput and what would help.",
       1,
       1,
       {{"--seconds", "S", "how long to run, in seconds: a number > 0 and at most 1000000 (default 5)"},
        {"--trace", "FILE", "also write the calls as Chrome trace events (open FILE in Perfetto)"},
        {"--json", "FILE", "also write the report as JSON"},
        {"--progress", "auto|always|never", kProfileProgressHelp}},
       {"sluice profile examples/specs/range_map_filter_batch.pbtxt --seconds 1 --json report.json"},
       ProfileCommand},
      {"describe",
       "SPEC.pbtxt",
       "Prints the graph: each op with its parameters, element spec and cardinality.",
       1,
       1,
       {},
       {"sluice describe examples/specs/zip_concatenate.pbtxt"},
       DescribeCommand},
      {"save",
       "SPEC.pbtxt DIR [--compression none|zlib|gzip] [--shards N | --shard-func EXPR]",
       "Writes every element of the pipeline into DIR as a snapshot (docs/snapshot-format.md) that a spec's load "
       "op reads back in the same order (with --shard-func: shard by shard); the manifest is written last, so DIR "
       "is a snapshot only once the whole input is in it. Prints the number of elements saved.",
       2,
       2,
       {{"--compression", "C", "none (default), zlib or gzip: the segment files' compression"},
        {"--shards", "N", "files written at once, element i to file i % N: a count from 1 to 4096 (default 1)"},
        {"--shard-func", "EXPR",
         "instead of --shards, each element's shard: an int64 scalar expression of its components (docs/ops.md, "
         "Expressions), 0 to 4095; load reads shard 0, then shard 1, ..."}},
       {"sluice save examples/specs/range_map_filter_batch.pbtxt /tmp/saved --compression gzip"},
       SaveCommand},
      {"demo",
       "[--epochs E] [--dir DIR]",
       "Trains a classifier end to end: generated data written as GZIP TFRecords, read back through the input "
       "pipeline, fit, export, reload and predict, then the profiler's verdict on the input pipeline.",
       0,
       0,
       {{"--epochs", "E", "training epochs, from 1 to 1000 (default 5)"},
        {"--dir", "DIR",
         "the demo's working directory (default: sluice_demo in the temporary directory). It must not exist, be "
         "empty, or be one an earlier demo made (marked by a .sluice-demo file), whose contents are replaced; "
         "any other path is refused and left as it is"}},
       {"sluice demo --epochs 2 --dir /tmp/my_demo"},
       DemoCommand},
      {"train",
       "JOB.pbtxt [--resume]",
       "Runs a training job described in a file (model/job.proto, docs/training.md): the input pipeline specs, "
       "the model, loss, optimizer and schedule, metrics, epochs, checkpoints, export and TensorBoard "
       "directories. Prints one line per epoch. Spec files are relative to the job file; the data, checkpoint, "
       "export and TensorBoard paths to the working directory. Under mpirun -np N, data-parallel on N ranks: each "
       "rank trains on shard(N, rank) of the pipelines' batches (the spec's batch size is per rank), gradients are "
       "averaged over the ranks, and rank 0 alone prints and writes; a rank that fails ends the job.",
       1,
       1,
       {{"--resume", "",
         "continue from the newest checkpoint in the job's checkpoint directory (from the start when it has "
         "none); without it a directory that holds checkpoints is refused"}},
       {"sluice train examples/jobs/demo.pbtxt --resume", "mpirun -np 2 sluice train examples/jobs/demo.pbtxt"},
       TrainCommand},
      {"predict",
       "BUNDLE FILE... [--lines]",
       "Runs an exported model that carries its preprocessing (model/export.h, docs/training.md) on raw inputs: "
       "each FILE's bytes are one input (a JPEG or PNG, a serialized tf.train.Example, a text), as the bundle's "
       "one scalar string raw input, preprocessed exactly as in training. Prints one JSON line per input: its "
       "name (FILE, or FILE:LINE) and the model's outputs by name.",
       2,
       SIZE_MAX,
       {{"--lines", "", "each line of each FILE is one input (text), without its newline"}},
       {"sluice predict exported_model reviews.txt --lines", "sluice predict exported_model cat.jpg dog.jpg"},
       PredictCommand},
      {"tfrecord",
       "inspect FILE... [--records N] [--compression auto|none|zlib|gzip] [--max-record-bytes N]\n"
       "       | verify GLOB... [--compression auto|none|zlib|gzip] [--max-record-bytes N]\n"
       "         [--progress auto|always|never]\n"
       "       | write --input DATA.csv|DATA.jsonl --output FILE [--compression none|zlib|gzip] [--format csv|jsonl]\n"
       "         [--progress auto|always|never]",
       "inspect: per file, the compression, record count and sizes, CRC check, the first records as JSON and "
       "the feature schema; bytes are JSON strings of one code point per byte: printable ASCII as itself, any "
       "other byte as \\u00XX. verify: reads every record of every matching file, one line per file; exit "
       "status 1 when any is damaged, on a directory and on a pattern that matches nothing. write: makes tf.train.Example records from CSV (a header line of feature "
       "names; RFC 4180 quoting, newlines in quoted cells included) or JSON lines (one object per line). A "
       "feature's kind is inferred over the whole input: int64 when every value is a whole number that fits "
       "int64 (read exactly), else float when every value is a number (in CSV also nan, inf and -inf), else "
       "bytes (CSV); in JSON lines strings are bytes, and a feature with strings and numbers is an error. A "
       "finite number beyond float32's range (1e39, 1e400) is an error naming its line and column.",
       1,
       SIZE_MAX,
       {{"--records", "N", "inspect: how many records to print as JSON, a count >= 0 (default 3)"},
        {"--compression", "auto|none|zlib|gzip",
         "inspect, verify: the files' compression (default auto: detected from the first bytes); write: the "
         "output's (default none)"},
        {"--input", "FILE", "write: the CSV or JSON-lines file to convert"},
        {"--output", "FILE", "write: the TFRecord file to create"},
        {"--format", "csv|jsonl", "write: the input's format (default: csv for a .csv file, else jsonl)"},
        {"--max-record-bytes", "N",
         "inspect, verify: the largest record accepted, in data bytes, >= 1 (default 268435456, 256 MiB); a "
         "longer declared length is a damaged record, and the scan for the next record after a damaged header "
         "gives up after N + 16 bytes"},
        {"--progress", "auto|always|never", kTFRecordProgressHelp}},
       {"sluice tfrecord inspect data.tfrecord.gz --records 1", "sluice tfrecord verify 'shards/*.tfrecord'",
        "sluice tfrecord write --input penguins.csv --output penguins.tfrecord --compression gzip"},
       TFRecordCommand},
      {"dispatcher",
       "--port P --work-dir D [--journal-compaction-bytes N] [--rows-per-split N] [--bind ADDR] [--token-file F] "
       "[--allow-root DIR]...",
       "Runs the data service's dispatcher until SIGINT or SIGTERM: it registers datasets, makes jobs, hands "
       "splits to workers and tells consumers where to read. Every change is journaled in the work directory, "
       "so a dispatcher restarted on it carries on without losing or repeating splits. Prints 'dispatcher "
       "listening on HOST:PORT' once it accepts connections (docs/service.md).",
       0,
       0,
       {{"--port", "P", "the TCP port to listen on, 0 to 65535 (0: any free port, printed at start)"},
        {"--work-dir", "D", "the directory of the journal (made when missing)"},
        {"--journal-compaction-bytes", "N",
         "compact the journal into a snapshot of the state once the updates since the last one pass N bytes, "
         "1 to 2^40 (default 16777216)"},
        kRowsPerSplitFlag,
        kBindFlag,
        kTokenFileFlag,
        kAllowRootFlag},
       {"sluice dispatcher --port 5050 --work-dir /var/lib/sluice/dispatcher"},
       DispatcherCommand},
      {"worker",
       "--dispatcher HOST:P [--port Q] [--allow-root DIR]... [--bind ADDR] [--advertise HOST] [--token-file F]",
       "Runs a data-service worker until SIGINT or SIGTERM: it heartbeats to the dispatcher, runs the splits "
       "it is given and streams their elements to the jobs' consumers. It reads files only under the allowed "
       "roots. Prints 'worker listening on HOST:PORT' once it accepts connections.",
       0,
       0,
       {{"--dispatcher", "HOST:P", "the dispatcher's address"},
        {"--port", "Q", "the TCP port of the element server, 0 to 65535 (default 0: any free port)"},
        kAllowRootFlag,
        kBindFlag,
        {"--advertise", "HOST", "the host consumers dial to reach this worker (default: the --bind address)"},
        kTokenFileFlag},
       {"sluice worker --dispatcher 10.0.0.1:5050 --bind 0.0.0.0 --advertise 10.0.0.2 --token-file "
        "/etc/sluice/token --allow-root /data"},
       WorkerCommand},
      {"serve",
       "SPEC.pbtxt [--port P] [--mpi] [--address-file F] [--rows-per-split N] [--bind ADDR] [--allow-root DIR]... "
       "[--token-file F]",
       "Runs a dispatcher and one worker in one process, for one machine, with the spec registered, until "
       "SIGINT or SIGTERM. Prints 'dispatcher listening on HOST:PORT' and 'dataset ID' (the id consumers may "
       "read by, instead of sending the spec). With --mpi, under mpirun -np N (N >= 2), a whole service: "
       "rank 0 the dispatcher, ranks 1 to N-1 a worker each, which learn the dispatcher's address through MPI; "
       "rank 0 prints those lines, and a 'worker listening on HOST:PORT' line per worker, once every worker "
       "has registered.",
       1,
       1,
       {{"--port", "P", "the dispatcher's TCP port, 0 to 65535 (default 0: any free port)"},
        {"--mpi", "",
         "run as one rank of an mpirun job: rank 0 the dispatcher, the other ranks workers (on a wildcard "
         "--bind, each rank names its host to the others)"},
        {"--address-file", "F",
         "also write the lines it prints to F, before it prints them (written whole: a script may wait for F "
         "to appear)"},
        kRowsPerSplitFlag,
        kBindFlag,
        kAllowRootFlag,
        kTokenFileFlag},
       {"sluice serve examples/specs/range_map_filter_batch.pbtxt --port 5050",
        "mpirun -np 4 sluice serve --mpi examples/specs/range_map_filter_batch.pbtxt --address-file service.txt"},
       ServeCommand},
  };
  return *commands;
}

// Lines of at most ~100 columns, each starting with `indent`.
void PrintWrapped(std::ostream& out, std::string_view text, std::string_view indent) {
  constexpr size_t kWidth = 100;
  std::string line;
  for (size_t start = 0; start < text.size();) {
    size_t end = text.find(' ', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view word = text.substr(start, end - start);
    if (!line.empty() && indent.size() + line.size() + 1 + word.size() > kWidth) {
      out << indent << line << "\n";
      line.clear();
    }
    if (!line.empty()) line += ' ';
    line += word;
    start = end + 1;
  }
  if (!line.empty()) out << indent << line << "\n";
}

void PrintCommandHelp(std::ostream& out, const Command& c) {
  out << "usage: sluice " << c.name << " " << c.arguments << "\n\n";
  PrintWrapped(out, c.summary, "  ");
  if (!c.flags.empty()) {
    out << "\n  flags:\n";
    for (const Flag& flag : c.flags) {
      out << "    " << flag.name << (flag.value.empty() ? "" : " ") << flag.value << "\n";
      PrintWrapped(out, flag.help, "        ");
    }
  }
  out << "\n  example" << (c.examples.size() > 1 ? "s" : "") << ":\n";
  for (std::string_view example : c.examples) out << "    " << example << "\n";
}

constexpr std::string_view kExitCodes =
    "exit status: 0 success; 1 the command failed while running (an unreadable or invalid file, a flag value "
    "out of range, damaged records, stdout not writable); 2 usage error (unknown command or flag, a flag "
    "without a value or given twice, the wrong number of arguments).";

void PrintUsage(std::ostream& out) {
  out << "usage: sluice <command> [arguments]\n"
      << "       sluice <command> --help    (or -h): that command's flags and examples\n\n"
      << "commands:\n";
  for (const Command& c : Commands()) {
    out << "  " << c.name << " " << c.arguments << "\n";
  }
  out << "\n";
  PrintWrapped(out, kExitCodes, "");
  for (const Command& c : Commands()) {
    out << "\n";
    PrintCommandHelp(out, c);
  }
}

bool IsHelp(std::string_view arg) { return arg == "--help" || arg == "-h"; }

// Splits `args` into positionals and flags ("--take 5" or "--take=5").
Result<CommandArgs> ParseArgs(const Command& command, std::span<const std::string> args) {
  CommandArgs parsed;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (!arg.starts_with("--")) {
      parsed.positional.push_back(arg);
      continue;
    }
    const size_t equals = arg.find('=');
    const std::string flag = arg.substr(0, equals);
    const Flag* known = nullptr;
    for (const Flag& f : command.flags) {
      if (f.name == flag) known = &f;
    }
    if (known == nullptr) return InvalidArgumentError("unknown flag ", flag);
    if (parsed.flags.contains(flag) && !known->repeatable) return InvalidArgumentError(flag, " is given twice");
    if (known->value.empty()) {
      if (equals != std::string::npos) return InvalidArgumentError(flag, " takes no value");
      parsed.flags[flag] = "";
      continue;
    }
    if (equals == std::string::npos && i + 1 >= args.size()) return InvalidArgumentError(flag, " needs a value");
    const std::string value = equals != std::string::npos ? arg.substr(equals + 1) : args[++i];
    if (value.empty()) return InvalidArgumentError(flag, " needs a value, got ''");
    parsed.flags[flag] = value;
    if (known->repeatable) parsed.repeated[flag].push_back(value);
  }
  const size_t count = parsed.positional.size();
  if (count < command.min_positional || count > command.max_positional) {
    if (command.min_positional == command.max_positional) {
      return InvalidArgumentError("expected ", command.min_positional, " argument(s), got ", count);
    }
    return InvalidArgumentError("expected at least ", command.min_positional, " argument(s), got ", count);
  }
  return parsed;
}

// The command's status, with an exception escaping it (a std::filesystem
// call, std::bad_alloc) turned into an error.
Status RunGuarded(const Command& command, const CommandArgs& args) {
  try {
    return command.run(args);
  } catch (const std::bad_alloc&) {
    return ResourceExhaustedError(command.name, ": out of memory");
  } catch (const std::exception& e) {
    return InternalError(command.name, ": ", e.what());
  }
}

// Prints `status` as the command's error; its exit status.
int Fail(const Status& status) {
  std::cerr << "sluice: " << status << "\n";
  return 1;
}

int Main(std::span<const std::string> args) {
  if (args.empty()) {
    PrintUsage(std::cerr);
    return 2;
  }
  if (IsHelp(args[0]) || args[0] == "help") {
    const Command* topic = nullptr;
    for (const Command& c : Commands()) {
      if (args.size() > 1 && c.name == args[1]) topic = &c;
    }
    if (topic != nullptr) PrintCommandHelp(std::cout, *topic);
    else PrintUsage(std::cout);
    const Status flushed = FlushStdout();
    return flushed.ok() ? 0 : Fail(flushed);
  }
  for (const Command& command : Commands()) {
    if (command.name != args[0]) continue;
    for (const std::string& arg : args.subspan(1)) {
      if (!IsHelp(arg)) continue;
      PrintCommandHelp(std::cout, command);
      const Status flushed = FlushStdout();
      return flushed.ok() ? 0 : Fail(flushed);
    }
    Result<CommandArgs> parsed = ParseArgs(command, args.subspan(1));
    if (!parsed.ok()) {
      std::cerr << "sluice " << command.name << ": " << parsed.status().message()
                << "\nusage: sluice " << command.name << " " << command.arguments
                << "\n(sluice " << command.name << " --help describes the flags)\n";
      return 2;
    }
    const Status status = RunGuarded(command, *parsed);
    const Status flushed = FlushStdout();
    if (!status.ok()) return Fail(status);
    if (!flushed.ok()) return Fail(flushed);
    return 0;
  }
  std::cerr << "sluice: unknown command '" << args[0] << "'\n";
  PrintUsage(std::cerr);
  return 2;
}

}  // namespace
}  // namespace sluice::cli

int main(int argc, char** argv) {
  // The last resort: nothing the commands or the dispatcher throw ends the
  // program without a message and a non-zero exit.
  try {
    std::ios::sync_with_stdio(false);
    sluice::cli::UseCheckedStdout();
    const std::vector<std::string> args(argv + 1, argv + argc);
    return sluice::cli::Main(args);
  } catch (const std::exception& e) {
    std::cerr << "sluice: Internal: " << e.what() << "\n";
  } catch (...) {
    std::cerr << "sluice: Internal: an unknown exception\n";
  }
  return 1;
}
