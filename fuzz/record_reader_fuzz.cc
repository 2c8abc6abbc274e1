// Fuzzes the TFRecord reader (tfrecord/record_reader.h) on arbitrary bytes:
// the first byte picks the compression, the buffer size and whether records
// are copied out or kept as views (of chunks, which must stay intact until
// the end, after the reader is gone); the rest is the file. Reading,
// including recovery after damage, must never crash, hang or trip a
// sanitizer. Then the records read are written back with the writer and
// must read back identically.
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "sluice/tfrecord/record_reader.h"
#include "sluice/tfrecord/record_writer.h"

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
  const bool views = (data[0] >> 4) & 1;
  const std::string_view file(reinterpret_cast<const char*>(data + 1), size - 1);
  auto reader = RecordReader::FromStream(MakeMemoryInputStream(file, "fuzz"),
                                         {.compression = compression, .buffer_size = buffer_size});
  std::vector<std::string> records;
  std::vector<std::pair<std::string_view, std::shared_ptr<const Buffer>>> kept;
  std::shared_ptr<const Buffer> owner;
  std::string record;
  for (int calls = 0; calls < 100'000; ++calls) {
    std::string_view view;
    Result<bool> got = views ? reader->ReadRecord(&view, &owner) : reader->ReadRecord(&record);
    if (!got.ok()) {
      if (got.status().code() != StatusCode::kDataLoss) std::abort();  // only damage is expected
      continue;
    }
    if (!*got) break;
    if (views) {
      kept.emplace_back(view, owner);
    } else {
      records.push_back(record);
    }
  }
  reader.reset();
  owner.reset();
  for (const auto& [view, block] : kept) records.emplace_back(view);

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
