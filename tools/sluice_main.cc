// sluice: runs and inspects pipeline specs. `sluice --help` lists the
// commands; each command lives in its own <name>_command.cc.

#include <cstdint>
#include <iostream>
#include <span>
#include <string_view>
#include <vector>

#include "tools/commands.h"

namespace sluice::cli {
namespace {

struct Command {
  std::string_view name;
  std::string_view arguments;  // for the usage line
  std::string_view summary;
  size_t min_positional;                // counts of positional arguments allowed
  size_t max_positional;
  std::vector<std::string_view> flags;  // flags that take a value, e.g. "--take"
  CommandFn run;
};

const std::vector<Command>& Commands() {
  static const auto* commands = new std::vector<Command>{
      {"run", "SPEC.pbtxt [--take N]", "print elements as JSON lines", 1, 1, {"--take"}, RunCommand},
      {"profile", "SPEC.pbtxt [--seconds S] [--trace FILE] [--json FILE]",
       "run the pipeline for S seconds (default 5) under the profiler: per-stage table and the bottleneck", 1, 1,
       {"--seconds", "--trace", "--json"}, ProfileCommand},
      {"describe", "SPEC.pbtxt", "print the graph, specs, cardinality", 1, 1, {}, DescribeCommand},
      {"demo", "[--epochs E] [--dir DIR]",
       "train a classifier end to end: generated data as GZIP TFRecords, the input pipeline, fit, export, predict",
       0, 0, {"--epochs", "--dir"}, DemoCommand},
      {"tfrecord",
       "inspect FILE... [--records N] [--compression auto|none|zlib|gzip] [--max-record-bytes N]\n"
       "         | verify GLOB... [--compression ...] [--max-record-bytes N]\n"
       "         | write --input DATA.csv|DATA.jsonl --output FILE [--compression ...] [--format csv|jsonl]",
       "inspect (records, sizes, CRCs, Examples as JSON, feature schema), verify (exit 1 on damage, on a "
       "directory and on a pattern that matches nothing) or write TFRecord files. In inspect's JSON, bytes "
       "are strings of one code point per byte: printable ASCII as itself, any other byte as \\u00XX. "
       "--max-record-bytes (default 268435456): a longer record is damage, and the scan for the next record "
       "after a damaged header gives up after that many bytes",
       1, SIZE_MAX, {"--records", "--compression", "--input", "--output", "--format", "--max-record-bytes"},
       TFRecordCommand},
  };
  return *commands;
}

void PrintUsage(std::ostream& out) {
  out << "usage: sluice <command> [arguments]\n\ncommands:\n";
  for (const Command& c : Commands()) {
    out << "  " << c.name << " " << c.arguments << "\n      " << c.summary << "\n";
  }
}

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
    bool known = false;
    for (std::string_view f : command.flags) known = known || f == flag;
    if (!known) return InvalidArgumentError("unknown flag ", flag);
    if (equals != std::string::npos) {
      parsed.flags[flag] = arg.substr(equals + 1);
    } else if (i + 1 < args.size()) {
      parsed.flags[flag] = args[++i];
    } else {
      return InvalidArgumentError(flag, " needs a value");
    }
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

int Main(std::span<const std::string> args) {
  if (args.empty()) {
    PrintUsage(std::cerr);
    return 2;
  }
  if (args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    PrintUsage(std::cout);
    return 0;
  }
  for (const Command& command : Commands()) {
    if (command.name != args[0]) continue;
    Result<CommandArgs> parsed = ParseArgs(command, args.subspan(1));
    if (!parsed.ok()) {
      std::cerr << "sluice " << command.name << ": " << parsed.status().message()
                << "\nusage: sluice " << command.name << " " << command.arguments << "\n";
      return 2;
    }
    const Status status = command.run(*parsed);
    std::cout.flush();
    if (!status.ok()) {
      std::cerr << "sluice: " << status << "\n";
      return 1;
    }
    return 0;
  }
  std::cerr << "sluice: unknown command '" << args[0] << "'\n";
  PrintUsage(std::cerr);
  return 2;
}

}  // namespace
}  // namespace sluice::cli

int main(int argc, char** argv) {
  std::ios::sync_with_stdio(false);
  const std::vector<std::string> args(argv + 1, argv + argc);
  return sluice::cli::Main(args);
}
