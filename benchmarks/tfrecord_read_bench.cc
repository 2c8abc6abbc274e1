// TFRecord read throughput, side by side in one run, as a table of medians:
//
//   bare read()       the file in 1 MiB blocks, nothing else
//   verified limit    read() in 1 MiB blocks, split the frames, hardware
//                     CRC32C of every length and payload: the limit of any
//                     reader that verifies what it reads
//   RecordReader      tfrecord/record_reader.h, one std::string per record
//   reader views      the same reader handing out views of its chunks (what
//                     the dataset reads with), nothing copied
//   dataset           Pipeline::TFRecord(...), one element per record
//   dataset+batch     Pipeline::TFRecord(...).Batch(64): records in batches
//
// for uncompressed files of 100 B, 1 KiB, 4 KiB and 16 KiB records, and for a GZIP
// file against zlib's inflate alone over the same compressed bytes. All
// figures are GB/s of (decompressed) file bytes; files are read once before
// timing, so they come from the page cache.
//
// Usage: tfrecord_read_bench [--megabytes M] [--runs R] [--dir D]
//                            [--sizes 1024,4096] [--only ROW]
// --sizes picks the uncompressed record sizes (0 = none: GZIP only); --only
// runs one row (read(), limit, reader, views, dataset, dataset+batch) of the
// uncompressed table and skips GZIP, for profilers.
#include <fcntl.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "sluice/benchmarks/verified_read_limit.h"
#include "sluice/dataset/pipeline.h"
#include "sluice/tfrecord/crc32c.h"
#include "sluice/tfrecord/record_reader.h"
#include "sluice/tfrecord/record_writer.h"

namespace sluice {
namespace {

using bench::Die;

constexpr size_t kBlock = 1 << 20;

// Text-like payloads: compressible about 3x, like real features.
std::string MakeFile(const std::string& path, size_t record_size, size_t total_bytes,
                     Compression compression) {
  auto writer = RecordWriter::Open(path, {.compression = compression});
  if (!writer.ok()) Die(writer.status().ToString());
  std::mt19937_64 rng(1);
  std::string pool(1 << 20, ' ');
  for (char& c : pool) c = static_cast<char>('a' + rng() % 12);
  for (size_t written = 0; written < total_bytes; written += record_size + 16) {
    const size_t offset = rng() % (pool.size() - record_size);
    if (!(*writer)->WriteRecord(std::string_view(pool).substr(offset, record_size)).ok()) {
      Die("write failed");
    }
  }
  if (!(*writer)->Close().ok()) Die("close failed");
  return path;
}

size_t BareRead(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY);
  std::vector<char> block(kBlock);
  size_t total = 0;
  for (ssize_t n; (n = ::read(fd, block.data(), block.size())) > 0;) total += n;
  ::close(fd);
  return total;
}

size_t ReaderRead(const std::string& path, Compression compression) {
  auto reader = RecordReader::Open(path, {.compression = compression});
  if (!reader.ok()) Die(reader.status().ToString());
  std::string record;
  size_t total = 0;
  while (true) {
    Result<bool> got = (*reader)->ReadRecord(&record);
    if (!got.ok()) Die(got.status().ToString());
    if (!*got) break;
    total += record.size() + 16;
  }
  return total;
}

size_t ViewRead(const std::string& path) {
  auto reader = RecordReader::Open(path, {});
  std::string_view record;
  std::shared_ptr<const Buffer> owner;
  size_t total = 0;
  while (true) {
    Result<bool> got = (*reader)->ReadRecord(&record, &owner);
    if (!got.ok()) Die(got.status().ToString());
    if (!*got) break;
    total += record.size() + 16;
  }
  return total;
}

size_t DatasetRead(const Pipeline& pipeline) {
  auto it = *pipeline.MakeIterator();
  size_t total = 0;
  while (true) {
    auto next = it->GetNext();
    if (!next.ok()) Die(next.status().ToString());
    if (!next->has_value()) break;
    const Tensor& records = (**next)[0];  // a scalar, or a [k] batch
    const TString* strings = records.data<TString>();
    const int64_t count = records.NumElements();
    for (int64_t i = 0; i < count; ++i) total += strings[i].size() + 16;
  }
  return total;
}

// zlib's inflate alone: the compressed file read in blocks and inflated into
// a reused output buffer, as the reader's stream does.
size_t InflateOnly(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY);
  std::vector<Bytef> in(256 << 10), out(256 << 10);
  z_stream stream{};
  inflateInit2(&stream, MAX_WBITS + 16);
  size_t total = 0;
  for (ssize_t n; (n = ::read(fd, in.data(), in.size())) > 0;) {
    stream.next_in = in.data();
    stream.avail_in = static_cast<uInt>(n);
    while (stream.avail_in > 0) {
      stream.next_out = out.data();
      stream.avail_out = static_cast<uInt>(out.size());
      const int rc = inflate(&stream, Z_NO_FLUSH);
      total += out.size() - stream.avail_out;
      if (rc == Z_STREAM_END) break;
      if (rc != Z_OK && rc != Z_BUF_ERROR) Die("inflate failed");
    }
  }
  inflateEnd(&stream);
  ::close(fd);
  return total;
}

struct Row {
  std::string name;
  std::function<size_t()> run;
  std::vector<double> gbps;
};

// "1024,4096" -> {1024, 4096}; "0" -> {}.
std::vector<size_t> ParseSizes(const char* text) {
  std::vector<size_t> sizes;
  for (char* end; *text != '\0'; text = *end == ',' ? end + 1 : end) {
    const size_t size = std::strtoul(text, &end, 10);
    if (end == text) Die(std::string("--sizes: not a list of numbers: ") + text);
    if (size > 0) sizes.push_back(size);
  }
  return sizes;
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Runs every row `runs` times, interleaved, so noise hits them alike.
void Measure(std::vector<Row>& rows, int runs) {
  for (Row& row : rows) row.run();  // page cache, allocator warm-up
  for (int r = 0; r < runs; ++r) {
    for (Row& row : rows) {
      const auto start = std::chrono::steady_clock::now();
      const size_t bytes = row.run();
      const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      row.gbps.push_back(bytes / s / 1e9);
    }
  }
}

int Main(int argc, char** argv) {
  size_t megabytes = 256;
  int runs = 7;
  std::string dir = "/tmp";
  std::vector<size_t> sizes = {100, 1024, 4096, 16384};
  std::string only;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--megabytes")) megabytes = std::strtoul(argv[i + 1], nullptr, 10);
    else if (!std::strcmp(argv[i], "--runs")) runs = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--dir")) dir = argv[i + 1];
    else if (!std::strcmp(argv[i], "--sizes")) sizes = ParseSizes(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--only")) only = argv[i + 1];
    else Die(std::string("unknown flag ") + argv[i]);
  }
  std::printf("crc32c: %s\n", crc32c::HardwareAvailable() ? "SSE4.2" : "portable");
  std::printf("%-22s %9s %9s %9s %9s %9s %9s %9s %9s %9s\n", "uncompressed, GB/s", "read()", "limit",
              "reader", "views", "dataset", "ds+batch", "ds/limit", "ds/read()", "dsb/limit");
  for (size_t record_size : sizes) {
    const std::string path = MakeFile(dir + "/sluice_bench.tfrecord", record_size, megabytes << 20,
                                      Compression::kNone);
    std::vector<Row> rows = {{"read()", [&] { return BareRead(path); }},
                             {"limit", [&] { return bench::VerifiedReadLimit(path); }},
                             {"reader", [&] { return ReaderRead(path, Compression::kNone); }},
                             {"views", [&] { return ViewRead(path); }},
                             {"dataset", [&] { return DatasetRead(Pipeline::TFRecord({.files = {path}})); }},
                             {"dataset+batch", [&] {
                                return DatasetRead(Pipeline::TFRecord({.files = {path}}).Batch({.batch_size = 64}));
                              }}};
    if (!only.empty()) {
      std::erase_if(rows, [&](const Row& row) { return row.name != only; });
      if (rows.empty()) Die("--only: no row named " + only);
      Measure(rows, runs);
      std::printf("%-22s %s %.2f GB/s\n", (std::to_string(record_size) + " B records").c_str(),
                  only.c_str(), Median(rows[0].gbps));
      std::remove(path.c_str());
      continue;
    }
    Measure(rows, runs);
    const double read = Median(rows[0].gbps), limit = Median(rows[1].gbps),
                 reader = Median(rows[2].gbps), views = Median(rows[3].gbps),
                 dataset = Median(rows[4].gbps), batched = Median(rows[5].gbps);
    std::printf("%-22s %9.2f %9.2f %9.2f %9.2f %9.2f %9.2f %9.2f %9.2f %9.2f\n",
                (std::to_string(record_size) + " B records").c_str(), read, limit, reader, views, dataset,
                batched, dataset / limit, dataset / read, batched / limit);
    std::remove(path.c_str());
  }
  if (!only.empty()) return 0;
  const std::string gz = MakeFile(dir + "/sluice_bench.tfrecord.gz", 1024, megabytes << 20,
                                  Compression::kGzip);
  std::vector<Row> rows = {{"inflate", [&] { return InflateOnly(gz); }},
                           {"reader", [&] { return ReaderRead(gz, Compression::kGzip); }},
                           {"dataset", [&] {
                              return DatasetRead(Pipeline::TFRecord({.files = {gz}, .compression = Compression::kGzip}));
                            }}};
  Measure(rows, runs);
  const double inflate = Median(rows[0].gbps), reader = Median(rows[1].gbps),
               dataset = Median(rows[2].gbps);
  std::printf("\n%-22s %9s %9s %9s %9s\n", "GZIP 1 KiB, GB/s out", "inflate", "reader", "dataset",
              "ds/infl.");
  std::printf("%-22s %9.2f %9.2f %9.2f %9.2f\n", "decompressed bytes", inflate, reader, dataset,
              dataset / inflate);
  std::remove(gz.c_str());
  return 0;
}

}  // namespace
}  // namespace sluice

int main(int argc, char** argv) { return sluice::Main(argc, argv); }
