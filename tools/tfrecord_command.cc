// sluice tfrecord inspect|verify|write: look into, check and make TFRecord
// files of tf.train.Example records.
#include <algorithm>
#include <iostream>
#include <sstream>

#include "sluice/dataset/list_files_dataset.h"
#include "sluice/tfrecord/input_stream.h"
#include "sluice/tfrecord/record_reader.h"
#include "sluice/tfrecord/record_writer.h"
#include "sluice/tools/commands.h"
#include "sluice/tools/example_conversion.h"
#include "sluice/tools/flags.h"
#include "sluice/tools/progress.h"

namespace sluice::cli {
namespace {

// --compression: "auto" (default) detects it from the file's first bytes.
Result<Compression> FileCompression(const CommandArgs& args, const std::string& path, bool* detected) {
  const std::string name = FlagOr(args, "--compression", "auto");
  *detected = name == "auto";
  if (!*detected) return ParseCompression(name);
  SLUICE_ASSIGN_OR_RETURN(std::unique_ptr<InputStream> file, OpenFileInputStream(path));
  uint8_t head[16];
  SLUICE_ASSIGN_OR_RETURN(size_t n, file->Read(head, sizeof(head)));
  return DetectCompression({head, n});
}

// How to read `path`: --compression ("auto", the default, detects it from the
// file's first bytes; *detected says so) and --max-record-bytes (default
// 256 MiB: a longer record is damage, and the scan for the next record after
// a damaged header stops after that many bytes).
Result<RecordReaderOptions> ReaderOptions(const CommandArgs& args, const std::string& path, bool* detected) {
  SLUICE_ASSIGN_OR_RETURN(
      const int64_t max_record_bytes,
      CountFlag(args, "--max-record-bytes", static_cast<int64_t>(RecordReaderOptions::kDefaultMaxRecordBytes), 1));
  SLUICE_ASSIGN_OR_RETURN(const Compression compression, FileCompression(args, path, detected));
  return RecordReaderOptions{.compression = compression, .max_record_bytes = static_cast<uint64_t>(max_record_bytes)};
}

// True when `record` parses as `message` with no unknown fields: other
// messages (an Event, ...) often parse too, as unknown fields.
template <typename Message>
bool ParsesCleanly(const std::string& record, Message* message) {
  return message->ParseFromString(record) && message->GetReflection()->GetUnknownFields(*message).empty();
}

// Decodes record `index` as a Message into the schema summary, and as a
// JSON line into `samples` when given; false if it isn't one.
template <typename Message, typename ToJson>
bool Decode(const std::string& record, int64_t index, ToJson to_json, FeatureSchemaSummary* schema,
            std::ostream* samples) {
  Message message;
  if (!ParsesCleanly(record, &message)) return false;
  schema->Add(message);
  if (samples != nullptr) *samples << "    #" << index << " " << to_json(message) << "\n";
  return true;
}

Status Inspect(const CommandArgs& args, const std::string& path) {
  SLUICE_ASSIGN_OR_RETURN(const int64_t shown, CountFlag(args, "--records", 3));
  bool detected = false;
  SLUICE_ASSIGN_OR_RETURN(const RecordReaderOptions options, ReaderOptions(args, path, &detected));
  const Compression compression = options.compression;
  SLUICE_ASSIGN_OR_RETURN(auto reader, RecordReader::Open(path, options));
  std::ostringstream samples;
  FeatureSchemaSummary schema;
  // The payload kind is taken from the first record; decoding stops at the
  // first record that isn't of that kind.
  enum class Payload { kUnknown, kExample, kSequenceExample, kOther } payload = Payload::kUnknown;
  std::string not_decoded;  // why decoding stopped
  int64_t records = 0, total = 0, min_size = 0, max_size = 0, parsed = 0;
  Status damage;
  std::string record;
  while (true) {
    Result<bool> got = reader->ReadRecord(&record);
    if (!got.ok()) {
      damage = got.status();
      break;
    }
    if (!*got) break;
    const int64_t size = static_cast<int64_t>(record.size());
    min_size = records == 0 ? size : std::min(min_size, size);
    max_size = std::max(max_size, size);
    total += size;
    std::ostream* sample = records < shown ? &samples : nullptr;
    if (payload == Payload::kUnknown || payload == Payload::kExample) {
      if (Decode<tensorflow::Example>(record, records, ExampleToJson, &schema, sample)) {
        payload = Payload::kExample;
        ++parsed;
      } else if (payload == Payload::kExample) {
        not_decoded = StrCat("record ", records, " is not a tf.train.Example");
        payload = Payload::kOther;
      }
    }
    if (payload == Payload::kUnknown || payload == Payload::kSequenceExample) {
      if (Decode<tensorflow::SequenceExample>(record, records, SequenceExampleToJson, &schema, sample)) {
        payload = Payload::kSequenceExample;
        ++parsed;
      } else {
        not_decoded = StrCat("record ", records, " is not a tf.train.",
                             payload == Payload::kUnknown ? "Example or SequenceExample" : "SequenceExample");
        payload = Payload::kOther;
      }
    }
    ++records;
  }
  std::cout << path << "\n  compression: " << CompressionName(compression)
            << (detected ? " (detected)" : " (given)") << "\n  records: " << records;
  if (records > 0) {
    std::cout << ", " << total << " data bytes, " << min_size << "-" << max_size << " bytes each";
  }
  std::cout << "\n  CRCs: " << (damage.ok() ? "all verified" : damage.ToString()) << "\n";
  if (parsed > 0) {
    const char* kind = payload == Payload::kSequenceExample ? "SequenceExample" : "Example";
    std::cout << "  first " << std::min(shown, parsed) << " record(s) as tf.train." << kind << ":\n"
              << samples.str() << "  feature schema over " << parsed << " " << kind << "(s):\n"
              << schema.ToString();
  }
  if (!not_decoded.empty()) std::cout << "  " << not_decoded << "\n";
  return damage;
}

Status InspectCommand(const CommandArgs& args) {
  Status first_error;
  for (size_t i = 1; i < args.positional.size(); ++i) {
    const Status status = Inspect(args, args.positional[i]);
    if (!status.ok() && first_error.ok()) first_error = status;
  }
  return first_error;
}

// The files each pattern matches; a pattern that matches none is a "BAD"
// line of its own.
std::vector<std::string> MatchEachPattern(const CommandArgs& args, int64_t* bad) {
  std::vector<std::string> files;
  for (size_t i = 1; i < args.positional.size(); ++i) {
    Result<std::vector<std::string>> matched = MatchFiles({args.positional[i]});
    if (!matched.ok()) {
      std::cout << "BAD " << args.positional[i] << ": " << matched.status() << "\n";
      ++*bad;
      continue;
    }
    files.insert(files.end(), matched->begin(), matched->end());
  }
  return files;
}

// Reads every record of every matching file; one line per file. A
// directory, and a pattern that matches nothing, are errors too.
Status VerifyCommand(const CommandArgs& args) {
  SLUICE_ASSIGN_OR_RETURN(const bool show_progress, ProgressFlag(args));
  int64_t damaged_files = 0;
  const std::vector<std::string> files = MatchEachPattern(args, &damaged_files);
  Progress progress({.label = "verify", .item = "records", .step = "files"},
                    {.enabled = show_progress, .flush_first = &std::cout});
  ProgressCounts counts{.bytes = 0, .total = static_cast<int64_t>(files.size())};
  for (const std::string& path : files) {
    progress.Update(counts);
    bool detected = false;
    Result<RecordReaderOptions> options = ReaderOptions(args, path, &detected);
    Result<std::unique_ptr<RecordReader>> reader =
        options.ok() ? RecordReader::Open(path, *options) : Result<std::unique_ptr<RecordReader>>(options.status());
    if (!reader.ok()) {
      progress.Clear();
      std::cout << "BAD " << path << ": " << reader.status() << "\n";
      ++damaged_files;
      ++counts.done;
      continue;
    }
    int64_t records = 0, bytes = 0, damaged = 0;
    Status first, last;
    std::string record;
    // The reader resumes after damage, so every damaged record is counted
    // (up to kMaxDamaged).
    constexpr int64_t kMaxDamaged = 1000;
    bool ended = false;
    while (!ended && damaged < kMaxDamaged) {
      Result<bool> got = (*reader)->ReadRecord(&record);
      if (!got.ok()) {
        (first.ok() ? first : last) = got.status();
        ++damaged;
      } else if (!*got) {
        ended = true;
      } else {
        ++records;
        bytes += static_cast<int64_t>(record.size());
        ++counts.items;
        counts.bytes += static_cast<int64_t>(record.size());
        progress.Update(counts);
      }
    }
    ++counts.done;
    progress.Clear();
    if (first.ok()) {
      std::cout << "OK  " << path << ": " << records << " records, " << bytes << " bytes, "
                << CompressionName(options->compression) << "\n";
    } else {
      ++damaged_files;
      std::cout << "BAD " << path << ": " << damaged << " damaged record(s), " << records << " intact, "
                << (*reader)->bytes_skipped() << " bytes skipped" << (ended ? "" : StrCat(" (stopped after ", kMaxDamaged, " damaged records)"))
                << "; first: " << first;
      if (!last.ok()) std::cout << "; last: " << last;
      std::cout << "\n";
    }
  }
  if (damaged_files > 0) return DataLossError(damaged_files, " file(s) or pattern(s) damaged or unreadable");
  return OkStatus();
}

// The whole file; a directory or a file that can't be read is an error naming it.
Result<std::string> ReadText(const std::string& path) {
  SLUICE_ASSIGN_OR_RETURN(std::unique_ptr<InputStream> in, OpenFileInputStream(path));
  std::string text;
  while (true) {
    const size_t done = text.size();
    text.resize(done + (64 << 10));
    SLUICE_ASSIGN_OR_RETURN(size_t n, in->Read(text.data() + done, text.size() - done));
    text.resize(done + n);
    if (n == 0) return text;
  }
}

// Examples from a CSV or JSON-lines file to a TFRecord file.
Status WriteCommand(const CommandArgs& args) {
  const std::string input = FlagOr(args, "--input"), output = FlagOr(args, "--output");
  if (input.empty() || output.empty()) return InvalidArgumentError("write needs --input and --output");
  const std::string format =
      FlagOr(args, "--format", input.ends_with(".csv") ? "csv" : "jsonl");
  SLUICE_ASSIGN_OR_RETURN(const Compression compression,
                          ParseCompression(FlagOr(args, "--compression", "none")));
  SLUICE_ASSIGN_OR_RETURN(const bool show_progress, ProgressFlag(args));
  SLUICE_ASSIGN_OR_RETURN(const std::string text, ReadText(input));
  std::vector<tensorflow::Example> examples;
  if (format == "csv") {
    SLUICE_ASSIGN_OR_RETURN(examples, ExamplesFromCsv(text));
  } else if (format == "jsonl") {
    SLUICE_ASSIGN_OR_RETURN(examples, ExamplesFromJsonLines(text, input));
  } else {
    return InvalidArgumentError("--format must be csv or jsonl, got '", format, "'");
  }
  SLUICE_ASSIGN_OR_RETURN(auto writer, RecordWriter::Open(output, {.compression = compression}));
  Progress progress({.label = "write", .item = "records"}, {.enabled = show_progress, .flush_first = &std::cout});
  ProgressCounts counts{.bytes = 0, .total = static_cast<int64_t>(examples.size())};
  for (const tensorflow::Example& example : examples) {
    const std::string record = example.SerializeAsString();
    SLUICE_RETURN_IF_ERROR(writer->WriteRecord(record));
    ++counts.items;
    counts.bytes += static_cast<int64_t>(record.size());
    progress.Update(counts);
  }
  SLUICE_RETURN_IF_ERROR(writer->Close());
  progress.Clear();
  std::cout << "wrote " << examples.size() << " Example(s) to " << output << " ("
            << CompressionName(compression) << ")\n";
  return OkStatus();
}

}  // namespace

Status TFRecordCommand(const CommandArgs& args) {
  const std::string& sub = args.positional[0];
  const size_t operands = args.positional.size() - 1;
  if (sub == "inspect" || sub == "verify") {
    if (operands == 0) return InvalidArgumentError("tfrecord ", sub, " needs at least one file");
    return sub == "inspect" ? InspectCommand(args) : VerifyCommand(args);
  }
  if (sub == "write") {
    if (operands != 0) return InvalidArgumentError("tfrecord write takes --input and --output, not files");
    return WriteCommand(args);
  }
  return InvalidArgumentError("unknown tfrecord command '", sub, "': expected inspect, verify or write");
}

}  // namespace sluice::cli
