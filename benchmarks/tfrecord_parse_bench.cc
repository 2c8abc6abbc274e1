// tf.train.Example parse throughput, side by side in one run, as a table of
// records/s medians. The records hold a realistic image-classification
// schema, all four features requested (kFixedLen):
//
//   image/encoded  bytes, 1-3 KiB (random length per record)
//   label          int64 scalar
//   embedding      32 floats (packed), shape [32]
//   text           bytes, 100 B
//
// Rows (named as --only takes them), in memory: the serialized records are
// made once (fixed seed) and each row walks all of them once per run.
//
//   protobuf      tensorflow::Example::ParseFromString per record, then the
//                 four features looked up, checked and copied into batch
//                 outputs allocated per batch (std::string[N], int64[N],
//                 float[N*32], std::string[N]): what ParseBatch produces
//   ParseSingle   ExampleParser::ParseSingle per record
//   ParseBatch    ExampleParser::ParseBatch over batches of --batch, bytes
//                 features copied out (owned strings)
//   Parse         ExampleParser::Parse over [--batch] string tensors of the
//                 records: bytes features as views of the records, what
//                 parse_example runs
//   floor         each record copied whole into a std::string of a batch
//                 output: the allocating and copying of a parser that
//                 returns owned strings, without any parsing
//
// and end to end from a TFRecord file in --dir (just written, so read from
// the page cache), against the first of them:
//
//   protobuf_e2e  RecordReader, each record parsed as in `protobuf`
//   read          Pipeline::TFRecord -> Batch(N): reading alone
//   dataset       Pipeline::TFRecord -> Batch(N) -> Map(parse_example)
//
// Every parsing row sums the same checksum of what it parsed; the warm-up
// run fails if they differ.
//
// The allocator: with glibc's defaults, freeing a batch's strings can return
// the top of the heap to the kernel (trim) and the next batch page-faults it
// back in. Page faults are expensive in a VM (here ParseBatch alone ran 14x
// slower with the defaults), and whether a batch trims depends on the heap's
// layout, so the cost lands on whichever row happens to hit it and says
// nothing about parsing. So Main() raises M_TRIM_THRESHOLD and
// M_MMAP_THRESHOLD with mallopt() first, keeping freed memory in the heap as
// tcmalloc or jemalloc would; the table says so. --malloc default measures
// with glibc's defaults.
//
// The working set: by default 2048 records (4.8 MB), about what a pipeline
// parses while the records are still in cache after the reader copied them
// (tfrecord -> batch(256) -> parse_example touches each batch right after
// reading it). --records 20000 (47 MB) parses from memory instead: every
// row then waits on cache misses, ours more (two passes over each record,
// prefetched), and ParseBatch's ratio drops to about 2.2x.
//
// Usage: tfrecord_parse_bench [--records N] [--batch B] [--runs R] [--dir D]
//                             [--malloc tuned|default] [--only ROW]
#include <malloc.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sluice/dataset/parse_example.h"
#include "sluice/dataset/pipeline.h"
#include "sluice/tfrecord/example.pb.h"
#include "sluice/tfrecord/example_parser.h"
#include "sluice/tfrecord/record_reader.h"
#include "sluice/tfrecord/record_writer.h"

namespace sluice {
namespace {

constexpr char kImageKey[] = "image/encoded";
constexpr char kLabelKey[] = "label";
constexpr char kEmbeddingKey[] = "embedding";
constexpr char kTextKey[] = "text";
constexpr int64_t kEmbeddingSize = 32;
constexpr size_t kTextSize = 100;

[[noreturn]] void Die(const std::string& what) {
  std::fprintf(stderr, "error: %s\n", what.c_str());
  std::exit(1);
}

// The schema, in the order of the parsed components.
std::vector<FeatureConfig> Features() {
  return {{.key = kImageKey, .dtype = DType::kString},
          {.key = kLabelKey, .dtype = DType::kInt64},
          {.key = kEmbeddingKey, .dtype = DType::kFloat32, .shape = Shape{kEmbeddingSize}},
          {.key = kTextKey, .dtype = DType::kString}};
}

std::vector<std::string> MakeRecords(size_t count) {
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<size_t> image_size(1024, 3072);
  std::normal_distribution<float> normal;
  std::vector<std::string> records;
  records.reserve(count);
  tensorflow::Example example;
  for (size_t i = 0; i < count; ++i) {
    example.Clear();
    auto& map = *example.mutable_features()->mutable_feature();
    std::string image(image_size(rng), '\0');
    for (size_t k = 0; k < image.size(); k += 8) {  // incompressible, like JPEG
      const uint64_t word = rng();
      std::memcpy(&image[k], &word, std::min<size_t>(8, image.size() - k));
    }
    map[kImageKey].mutable_bytes_list()->add_value(std::move(image));
    map[kLabelKey].mutable_int64_list()->add_value(static_cast<int64_t>(rng() % 1000));
    auto* floats = map[kEmbeddingKey].mutable_float_list();
    for (int64_t k = 0; k < kEmbeddingSize; ++k) floats->add_value(normal(rng));
    std::string text(kTextSize, ' ');
    for (char& c : text) c = static_cast<char>('a' + rng() % 26);
    map[kTextKey].mutable_bytes_list()->add_value(std::move(text));
    records.push_back(example.SerializeAsString());
  }
  return records;
}

void WriteFile(const std::string& path, const std::vector<std::string>& records) {
  auto writer = RecordWriter::Open(path);
  if (!writer.ok()) Die(writer.status().ToString());
  for (const std::string& record : records) {
    if (!(*writer)->WriteRecord(record).ok()) Die("write failed");
  }
  if (!(*writer)->Close().ok()) Die("close failed");
}

// What every row sums over each record it parsed, so rows can be checked
// against each other and no row's work can be optimised away.
uint64_t RecordChecksum(size_t image_size, int64_t label, const float* embedding,
                        size_t text_size) {
  return image_size + static_cast<uint64_t>(label) * 7919 +
         std::bit_cast<uint32_t>(embedding[kEmbeddingSize - 1]) + text_size;
}

// A parsed batch's checksum; `batch` as ExampleParser returns it (one
// record's scalars when !batched).
uint64_t ElementChecksum(const Element& batch) {
  const Tensor& images = batch[0];
  const int64_t n = images.NumElements();
  uint64_t sum = 0;
  for (int64_t i = 0; i < n; ++i) {
    sum += RecordChecksum(images.data<TString>()[i].size(), batch[1].data<int64_t>()[i],
                          batch[2].data<float>() + i * kEmbeddingSize,
                          batch[3].data<TString>()[i].size());
  }
  return sum;
}

// --- protobuf reference -----------------------------------------------------

// The batch outputs the protobuf rows fill: the same values, types and
// layout as ParseBatch's tensors, allocated once per batch as ParseBatch
// allocates its tensors.
struct ProtobufBatch {
  explicit ProtobufBatch(size_t n)
      : images(n), labels(n), embeddings(n * kEmbeddingSize), texts(n) {}
  std::vector<std::string> images;
  std::vector<int64_t> labels;
  std::vector<float> embeddings;
  std::vector<std::string> texts;

  uint64_t Checksum(size_t n) const {
    uint64_t sum = 0;
    for (size_t i = 0; i < n; ++i) {
      sum += RecordChecksum(images[i].size(), labels[i], &embeddings[i * kEmbeddingSize],
                            texts[i].size());
    }
    return sum;
  }
};

const tensorflow::Feature& FindFeature(const tensorflow::Example& example, const char* key,
                                       tensorflow::Feature::KindCase kind, int count) {
  const auto& map = example.features().feature();
  const auto it = map.find(key);
  if (it == map.end()) Die(std::string("missing feature ") + key);
  const tensorflow::Feature& feature = it->second;
  const int size = kind == tensorflow::Feature::kBytesList   ? feature.bytes_list().value_size()
                   : kind == tensorflow::Feature::kFloatList ? feature.float_list().value_size()
                                                             : feature.int64_list().value_size();
  if (feature.kind_case() != kind || size != count) Die(std::string("bad feature ") + key);
  return feature;
}

// Parses one record into row i of `out`, checking each feature as the fast
// parser does (present, of the right kind, with the right number of values).
// `example` is reused across records, protobuf's best case: no new message
// per record, and the map keeps its table (protobuf 3.21 still frees and
// reallocates the map's entries on each parse). ParseFromArray is
// ParseFromString without needing a std::string.
void ProtobufParse(std::string_view record, tensorflow::Example& example, ProtobufBatch& out,
                   size_t i) {
  if (!example.ParseFromArray(record.data(), static_cast<int>(record.size()))) {
    Die("protobuf could not parse a record");
  }
  out.images[i] = FindFeature(example, kImageKey, tensorflow::Feature::kBytesList, 1)
                      .bytes_list()
                      .value(0);
  out.labels[i] =
      FindFeature(example, kLabelKey, tensorflow::Feature::kInt64List, 1).int64_list().value(0);
  const auto& floats =
      FindFeature(example, kEmbeddingKey, tensorflow::Feature::kFloatList, kEmbeddingSize)
          .float_list()
          .value();
  std::copy(floats.begin(), floats.end(), &out.embeddings[i * kEmbeddingSize]);
  out.texts[i] =
      FindFeature(example, kTextKey, tensorflow::Feature::kBytesList, 1).bytes_list().value(0);
}

uint64_t ProtobufInMemory(std::span<const std::string> records, size_t batch_size) {
  tensorflow::Example example;
  uint64_t sum = 0;
  for (size_t begin = 0; begin < records.size(); begin += batch_size) {
    const size_t n = std::min(batch_size, records.size() - begin);
    ProtobufBatch batch(n);
    for (size_t i = 0; i < n; ++i) ProtobufParse(records[begin + i], example, batch, i);
    sum += batch.Checksum(n);
  }
  return sum;
}

uint64_t ProtobufFromFile(const std::string& path, size_t batch_size) {
  auto reader = RecordReader::Open(path);
  if (!reader.ok()) Die(reader.status().ToString());
  tensorflow::Example example;
  std::string record;
  uint64_t sum = 0;
  for (bool more = true; more;) {
    ProtobufBatch batch(batch_size);
    size_t n = 0;
    while (n < batch_size) {
      Result<bool> got = (*reader)->ReadRecord(&record);
      if (!got.ok()) Die(got.status().ToString());
      if (!(more = *got)) break;
      ProtobufParse(record, example, batch, n++);
    }
    sum += batch.Checksum(n);
  }
  return sum;
}

// The floor: no parsing, only one allocation and copy per record.
uint64_t CopyFloor(std::span<const std::string> records, size_t batch_size) {
  uint64_t total = 0;
  for (size_t begin = 0; begin < records.size(); begin += batch_size) {
    const size_t n = std::min(batch_size, records.size() - begin);
    std::vector<std::string> batch(n);
    for (size_t i = 0; i < n; ++i) batch[i] = records[begin + i];
    for (const std::string& copy : batch) total += copy.size();
  }
  return total;
}

// --- the fast parser ---------------------------------------------------------

uint64_t ParseSingleEach(const ExampleParser& parser, std::span<const std::string_view> records) {
  uint64_t sum = 0;
  for (std::string_view record : records) {
    Result<Element> parsed = parser.ParseSingle(record);
    if (!parsed.ok()) Die(parsed.status().ToString());
    sum += ElementChecksum(*parsed);
  }
  return sum;
}

uint64_t ParseTensors(const ExampleParser& parser, const std::vector<Tensor>& batches) {
  uint64_t sum = 0;
  for (const Tensor& batch : batches) {
    Result<Element> parsed = parser.Parse(batch);
    if (!parsed.ok()) Die(parsed.status().ToString());
    sum += ElementChecksum(*parsed);
  }
  return sum;
}

uint64_t ParseBatches(const ExampleParser& parser, std::span<const std::string_view> records,
                      size_t batch_size) {
  uint64_t sum = 0;
  for (size_t begin = 0; begin < records.size(); begin += batch_size) {
    Result<Element> parsed =
        parser.ParseBatch(records.subspan(begin, std::min(batch_size, records.size() - begin)));
    if (!parsed.ok()) Die(parsed.status().ToString());
    sum += ElementChecksum(*parsed);
  }
  return sum;
}

// Iterates `pipeline` to the end; `visit` sums each element.
uint64_t RunPipeline(const Pipeline& pipeline, const std::function<uint64_t(const Element&)>& visit) {
  auto it = pipeline.MakeIterator();
  if (!it.ok()) Die(it.status().ToString());
  uint64_t sum = 0;
  while (true) {
    auto next = (*it)->GetNext();
    if (!next.ok()) Die(next.status().ToString());
    if (!next->has_value()) break;
    sum += visit(**next);
  }
  return sum;
}

// --- measurement -------------------------------------------------------------

struct Row {
  std::string name;               // for --only
  std::string label;              // in the table
  bool end_to_end;                // in the table's second part, against protobuf_e2e
  std::function<uint64_t()> run;  // returns the checksum (0: none to compare)
  std::vector<double> rate = {};  // records/s, one per run
};

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Runs every row `runs` times, interleaved, so noise hits them alike, after
// one warm-up run that also checks the checksums agree.
void Measure(std::vector<Row>& rows, int runs, size_t records) {
  uint64_t expected = 0;
  for (Row& row : rows) {
    const uint64_t sum = row.run();
    if (sum == 0) continue;
    if (expected == 0) expected = sum;
    if (sum != expected) Die(row.name + ": checksum differs from the first row's");
  }
  for (int r = 0; r < runs; ++r) {
    for (Row& row : rows) {
      const auto start = std::chrono::steady_clock::now();
      row.run();
      const double s =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      row.rate.push_back(static_cast<double>(records) / s);
    }
  }
}

int Main(int argc, char** argv) {
  size_t num_records = 2048;
  size_t batch_size = 256;
  int runs = 7;
  std::string dir = "/tmp";
  std::string malloc_mode = "tuned";
  std::string only;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--records")) num_records = std::strtoul(argv[i + 1], nullptr, 10);
    else if (!std::strcmp(argv[i], "--batch")) batch_size = std::strtoul(argv[i + 1], nullptr, 10);
    else if (!std::strcmp(argv[i], "--runs")) runs = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--dir")) dir = argv[i + 1];
    else if (!std::strcmp(argv[i], "--malloc")) malloc_mode = argv[i + 1];
    else if (!std::strcmp(argv[i], "--only")) only = argv[i + 1];
    else Die(std::string("unknown flag ") + argv[i]);
  }
  if (num_records == 0 || batch_size == 0 || runs < 1) Die("--records, --batch, --runs must be > 0");
  if (malloc_mode == "tuned") {
    // Keep freed memory in the heap: no trimming, and no mmap for the large
    // blocks (32 MiB is the most glibc accepts) that would unmap on free.
    if (!mallopt(M_TRIM_THRESHOLD, 1 << 30) || !mallopt(M_MMAP_THRESHOLD, 32 << 20)) {
      Die("mallopt failed");
    }
  } else if (malloc_mode != "default") {
    Die("--malloc must be tuned or default");
  }

  const std::vector<std::string> records = MakeRecords(num_records);
  const std::vector<std::string_view> views(records.begin(), records.end());
  std::vector<Tensor> record_batches;  // the records as string tensors, for Parse
  for (size_t begin = 0; begin < records.size(); begin += batch_size) {
    const auto end = static_cast<std::ptrdiff_t>(std::min(records.size(), begin + batch_size));
    record_batches.push_back(Tensor::FromVector(
        std::vector<std::string>(records.begin() + static_cast<std::ptrdiff_t>(begin), records.begin() + end)));
  }
  size_t bytes = 0;
  for (const std::string& record : records) bytes += record.size();
  const std::string path = dir + "/sluice_parse_bench.tfrecord";
  WriteFile(path, records);

  Result<ExampleSchema> schema = ExampleSchema::Make(Features());
  if (!schema.ok()) Die(schema.status().ToString());
  const ExampleParser parser(std::move(*schema));
  const auto batch = static_cast<int64_t>(batch_size);
  const Pipeline read = Pipeline::TFRecord({.files = {path}}).Batch({.batch_size = batch});
  const Pipeline parse = read.Map(MakeParseExampleFunction("", Features()));
  if (!parse.Build().ok()) Die(parse.Build().status().ToString());

  // The first row of each part is the reference for the rows after it.
  std::vector<Row> rows = {
      {"protobuf", "protobuf parse + copy out", false,
       [&] { return ProtobufInMemory(records, batch_size); }},
      {"ParseSingle", "ExampleParser::ParseSingle", false,
       [&] { return ParseSingleEach(parser, views); }},
      {"ParseBatch", "ExampleParser::ParseBatch (copies)", false,
       [&] { return ParseBatches(parser, views, batch_size); }},
      {"Parse", "ExampleParser::Parse (views)", false,
       [&] { return ParseTensors(parser, record_batches); }},
      {"floor", "copy floor (no parsing)", false,
       [&] {
         if (CopyFloor(records, batch_size) != bytes) Die("copy floor: lost bytes");
         return uint64_t{0};
       }},
      {"protobuf_e2e", "protobuf e2e (RecordReader)", true,
       [&] { return ProtobufFromFile(path, batch_size); }},
      {"read", "dataset tfrecord->batch (read only)", true,
       [&] {
         RunPipeline(read, [](const Element&) { return uint64_t{0}; });
         return uint64_t{0};
       }},
      {"dataset", "dataset ->map(parse_example)", true,
       [&] { return RunPipeline(parse, ElementChecksum); }},
  };
  if (!only.empty()) {
    std::erase_if(rows, [&](const Row& row) { return row.name != only; });
    if (rows.empty()) Die("--only: no row named " + only);
  }
  Measure(rows, runs, num_records);
  std::remove(path.c_str());

  std::printf("tf.train.Example parsing: %zu records of %.0f B mean (image 1-3 KiB, int64 label,\n"
              "32 floats, 100 B text), batches of %zu, records/s median of %d interleaved runs\n",
              num_records, static_cast<double>(bytes) / num_records, batch_size, runs);
  std::printf("malloc: %s\n",
              malloc_mode == "tuned"
                  ? "mallopt(M_TRIM_THRESHOLD=1 GiB, M_MMAP_THRESHOLD=32 MiB): freed batches stay "
                    "in the heap, so the allocator's page faults are not measured"
                  : "glibc defaults (freed batches may be trimmed and page-faulted back)");
  double reference = 0;
  for (size_t i = 0; i < rows.size(); ++i) {
    const double rate = Median(rows[i].rate);
    if (i == 0 || rows[i].end_to_end != rows[i - 1].end_to_end) {
      reference = rate;
      std::printf("%-36s %12s %9s %8s\n",
                  rows[i].end_to_end ? "end to end, from a TFRecord file" : "in memory",
                  "records/s", "MB/s", "ratio");
    }
    std::printf("%-36s %12.0f %9.0f %7.2fx\n", rows[i].label.c_str(), rate,
                rate * static_cast<double>(bytes) / static_cast<double>(num_records) / 1e6,
                rate / reference);
  }
  return 0;
}

}  // namespace
}  // namespace sluice

int main(int argc, char** argv) { return sluice::Main(argc, argv); }
