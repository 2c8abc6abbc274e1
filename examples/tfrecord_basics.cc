// Writes tf.train.Example records to GZIP TFRecord shards, then reads them
// back the way a training job does:
//   list_files -> interleave(tfrecord) -> shuffle -> batch -> parse_example
// and prints the first batch. Run from anywhere; it writes to /tmp.
#include <cstdio>
#include <filesystem>

#include "sluice/dataset/parse_example.h"
#include "sluice/dataset/pipeline.h"
#include "sluice/tfrecord/example.pb.h"
#include "sluice/tfrecord/record_writer.h"

using namespace sluice;

int main() {
  const std::string dir = (std::filesystem::temp_directory_path() / "sluice_tfrecord_basics").string();
  std::filesystem::create_directories(dir);
  for (int shard = 0; shard < 2; ++shard) {
    auto writer = RecordWriter::Open(StrCat(dir, "/train-", shard, ".tfrecord.gz"),
                                     {.compression = Compression::kGzip});
    if (!writer.ok()) return std::printf("%s\n", writer.status().ToString().c_str()), 1;
    for (int i = 0; i < 8; ++i) {
      tensorflow::Example example;
      auto& features = *example.mutable_features()->mutable_feature();
      features["label"].mutable_int64_list()->add_value((shard + i) % 2);
      features["x"].mutable_float_list()->add_value(shard + i * 0.5f);
      features["x"].mutable_float_list()->add_value(-i);
      for (int t = 0; t <= i % 3; ++t) features["tokens"].mutable_int64_list()->add_value(100 * shard + t);
      if (!(*writer)->WriteRecord(example.SerializeAsString()).ok()) return 1;
    }
    if (!(*writer)->Close().ok()) return 1;
  }

  const std::vector<FeatureConfig> features = {
      {.key = "label", .dtype = DType::kInt64},
      {.key = "x", .dtype = DType::kFloat32, .shape = Shape{2}},
      {.key = "tokens", .dtype = DType::kInt64, .layout = FeatureLayout::kVarLenPadded},
  };
  auto pipeline = Pipeline::ListFiles({.patterns = {dir + "/train-*.tfrecord.gz"}, .seed = 1})
                      .Interleave(MakeTFRecordFunction({.compression = Compression::kGzip}),
                                  {.cycle_length = 2})
                      .Shuffle({.buffer_size = 16, .seed = 42})
                      .Batch({.batch_size = 4})
                      .Map(MakeParseExampleFunction("", features))
                      .Prefetch(kAutotune);
  int batches = 0;
  auto elements = pipeline.Elements();
  for (const Element& batch : elements) {
    if (batches++ == 0) std::printf("first batch: %s\n", batch.DebugString().c_str());
  }
  if (!elements.status().ok()) return std::printf("%s\n", elements.status().ToString().c_str()), 1;
  std::printf("%d batches of tf.train.Example records\n", batches);
  std::filesystem::remove_all(dir);
  return batches == 4 ? 0 : 1;
}
