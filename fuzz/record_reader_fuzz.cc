// Fuzzes the TFRecord reader (tfrecord/record_reader.h) on arbitrary bytes:
// the first byte picks the compression and the buffer size, the rest is the
// file. Reading, including recovery after damage, must never crash, hang or
// trip a sanitizer. Then the records read are written back with the writer
// and must read back identically.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "tfrecord/record_reader.h"
#include "tfrecord/record_writer.h"

namespace {

constexpr sluice::Compression kCompressions[] = {sluice::Compression::kNone, sluice::Compression::kZlib,
                                                 sluice::Compression::kGzip};
constexpr size_t kBufferSizes[] = {0, 16, 100, 4096};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace sluice;
  if (size == 0) return 0;
  const Compression compression = kCompressions[data[0] % 3];
  const size_t buffer_size = kBufferSizes[(data[0] >> 2) % 4];
  const std::string_view file(reinterpret_cast<const char*>(data + 1), size - 1);
  auto reader = RecordReader::FromStream(MakeMemoryInputStream(file, "fuzz"),
                                         {.compression = compression, .buffer_size = buffer_size});
  std::vector<std::string> records;
  std::string record;
  for (int calls = 0; calls < 100'000; ++calls) {
    Result<bool> got = reader->ReadRecord(&record);
    if (!got.ok()) {
      if (got.status().code() != StatusCode::kDataLoss) std::abort();  // only damage is expected
      continue;
    }
    if (!*got) break;
    records.push_back(record);
  }

  std::string written;
  auto writer = RecordWriter::FromStream(MakeStringOutputStream(&written, "fuzz-out"), {.compression = compression});
  for (const std::string& r : records) {
    if (!writer->WriteRecord(r).ok()) std::abort();
  }
  if (!writer->Close().ok()) std::abort();
  auto again = RecordReader::FromStream(MakeMemoryInputStream(written, "fuzz-out"), {.compression = compression});
  for (const std::string& expected : records) {
    Result<bool> got = again->ReadRecord(&record);
    if (!got.ok() || !*got || record != expected) std::abort();
  }
  Result<bool> end = again->ReadRecord(&record);
  if (!end.ok() || *end) std::abort();
  return 0;
}
