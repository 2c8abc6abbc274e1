// Fuzzes the text-line, CSV and fixed-length record readers
// (tfrecord/line_reader.h, tfrecord/csv_reader.h,
// tfrecord/fixed_length_record_reader.h) on arbitrary bytes: the first byte
// picks the reader, the buffer size, the length bound, the CSV delimiter and
// quoting, or the record, header and footer lengths; the rest is the file.
// Reading must never crash, hang or trip a sanitizer; every view must stay
// readable after the reader is gone. Lines and CSV records may only fail
// with DataLoss, and without errors the lines must be the file split as
// TextLineDataset splits it. Fixed-length records must be the body's whole
// records, followed by an InvalidArgument error exactly when the body is
// not whole records.
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "sluice/tfrecord/csv_reader.h"
#include "sluice/tfrecord/fixed_length_record_reader.h"
#include "sluice/tfrecord/line_reader.h"

namespace {

constexpr size_t kBufferSizes[] = {1, 3, 64, 4096};
constexpr uint64_t kMaxBytes[] = {8, 1 << 20};
constexpr uint64_t kRecordBytes[] = {1, 2, 3, 5, 8, 13, 64, 5000};

// TextLineDataset's lines of `bytes`.
std::vector<std::string> ReferenceLines(std::string_view bytes) {
  std::vector<std::string> lines;
  std::string line;
  for (char c : bytes) {
    if (c == '\n') {
      lines.push_back(std::exchange(line, ""));
    } else if (c != '\r') {
      line += c;
    }
  }
  if (!line.empty()) lines.push_back(line);
  return lines;
}

// The records of `file` read with lengths picked by `config`, checked
// against the body's whole records.
void FuzzFixedLengthRecords(uint8_t config, std::string_view file) {
  using namespace sluice;
  const uint64_t record_bytes = kRecordBytes[(config >> 3) & 7];
  const uint64_t header_bytes = (config & 1) ? record_bytes % 3 + 1 : 0;
  const uint64_t footer_bytes = (config >> 7) & 1 ? record_bytes / 2 + 1 : 0;
  auto reader = FixedLengthRecordReader::FromStream(MakeMemoryInputStream(file, "fuzz"),
                                                    {.record_bytes = record_bytes,
                                                     .header_bytes = header_bytes,
                                                     .footer_bytes = footer_bytes,
                                                     .buffer_size = kBufferSizes[(config >> 1) % 4]});
  const bool fits = file.size() >= header_bytes + footer_bytes;
  const uint64_t body = fits ? file.size() - header_bytes - footer_bytes : 0;
  const bool whole = fits && body % record_bytes == 0;
  std::vector<std::pair<std::string_view, std::shared_ptr<const Buffer>>> kept;
  std::shared_ptr<const Buffer> owner;
  std::string_view records[8];
  bool failed = false, ended = false;
  // Each call returns a record or more, the error, or the end.
  for (size_t calls = 0; calls <= file.size() + 2 && !ended; ++calls) {
    Result<size_t> got = reader->ReadRecords(records, 8, &owner);
    if (!got.ok()) {
      if (got.status().code() != StatusCode::kInvalidArgument || whole || failed) std::abort();
      failed = true;
      continue;
    }
    ended = *got == 0;
    for (size_t i = 0; i < *got; ++i) kept.emplace_back(records[i], owner);
  }
  if (!ended) std::abort();           // the reader never ended
  if (failed == whole) std::abort();  // an error exactly when the body is not whole records
  reader.reset();
  owner.reset();
  if (kept.size() != body / record_bytes) std::abort();
  for (size_t i = 0; i < kept.size(); ++i) {
    if (kept[i].first != file.substr(header_bytes + i * record_bytes, record_bytes)) std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace sluice;
  if (size == 0) return 0;
  const std::string_view bytes(reinterpret_cast<const char*>(data + 1), size - 1);
  if ((data[0] >> 6) & 1) {
    FuzzFixedLengthRecords(data[0], bytes);
    return 0;
  }
  const bool csv = data[0] & 1;
  const size_t buffer_size = kBufferSizes[(data[0] >> 1) % 4];
  const uint64_t max_bytes = kMaxBytes[(data[0] >> 3) & 1];
  const char delim = (data[0] >> 4) & 1 ? '\t' : ',';
  const bool quotes = (data[0] >> 5) & 1;
  const std::string_view file = bytes;
  std::vector<std::pair<std::string_view, std::shared_ptr<const Buffer>>> kept;
  std::shared_ptr<const Buffer> owner;
  bool failed = false;
  if (csv) {
    auto reader = CsvReader::FromStream(
        MakeMemoryInputStream(file, "fuzz"),
        {.buffer_size = buffer_size, .field_delim = delim, .use_quote_delim = quotes, .max_record_bytes = max_bytes});
    std::vector<std::string_view> fields;
    for (int calls = 0; calls < 100'000; ++calls) {
      Result<bool> got = reader->ReadRecord(&fields, &owner);
      if (!got.ok()) {
        if (got.status().code() != StatusCode::kDataLoss) std::abort();
        continue;
      }
      if (!*got) break;
      if (fields.empty()) std::abort();  // a record has one field at least
      for (std::string_view field : fields) kept.emplace_back(field, owner);
    }
  } else {
    auto reader = LineReader::FromStream(MakeMemoryInputStream(file, "fuzz"),
                                         {.buffer_size = buffer_size, .max_line_bytes = max_bytes});
    std::string_view lines[8];
    for (int calls = 0; calls < 100'000; ++calls) {
      Result<size_t> got = reader->ReadLines(lines, 8, &owner);
      if (!got.ok()) {
        if (got.status().code() != StatusCode::kDataLoss) std::abort();
        failed = true;
        continue;
      }
      if (*got == 0) break;
      for (size_t i = 0; i < *got; ++i) kept.emplace_back(lines[i], owner);
    }
  }
  owner.reset();
  volatile uint8_t sink = 0;
  for (const auto& [view, block] : kept) {
    for (char c : view) sink = sink ^ static_cast<uint8_t>(c);
  }
  if (!csv && !failed) {
    const std::vector<std::string> expected = ReferenceLines(file);
    if (expected.size() != kept.size()) std::abort();
    for (size_t i = 0; i < kept.size(); ++i) {
      if (kept[i].first != expected[i]) std::abort();
    }
  }
  return 0;
}
