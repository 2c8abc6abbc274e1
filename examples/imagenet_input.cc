#include "sluice/examples/imagenet_input.h"

#include <algorithm>
#include <cmath>
#include <random>

#include "sluice/dataset/image_functions.h"
#include "sluice/dataset/parse_example.h"
#include "sluice/ops/encode_jpeg.h"
#include "sluice/tfrecord/example.pb.h"
#include "sluice/tfrecord/record_writer.h"

namespace sluice::examples {
namespace {

// A height x width RGB picture: gradients, a sine texture and noise, with a
// class-dependent blue channel.
Tensor Picture(int64_t height, int64_t width, int label, std::mt19937& rng) {
  Tensor image = Tensor::Allocate(DType::kUInt8, Shape{height, width, 3});
  uint8_t* p = image.mutable_data<uint8_t>();
  std::uniform_real_distribution<double> noise(-10, 10);
  for (int64_t y = 0; y < height; ++y) {
    for (int64_t x = 0; x < width; ++x) {
      const double texture = 40 * std::sin(x / 7.0) * std::cos(y / 11.0);
      const double base[3] = {x * 255.0 / width, y * 255.0 / height, static_cast<double>((x + y + 30 * label) % 256)};
      for (double value : base) *p++ = static_cast<uint8_t>(std::clamp(value + texture + noise(rng), 0.0, 255.0));
    }
  }
  return image;
}

}  // namespace

Status WriteImageNetRecords(const std::string& dir, const ImageNetRecordsOptions& options) {
  std::mt19937 rng(options.seed);
  std::uniform_int_distribution<int64_t> side(200, 500);
  std::vector<std::unique_ptr<RecordWriter>> shards;
  for (int k = 0; k < options.shards; ++k) {
    SLUICE_ASSIGN_OR_RETURN(std::unique_ptr<RecordWriter> writer,
                            RecordWriter::Open(StrCat(dir, "/train-", k, "-of-", options.shards, ".tfrecord")));
    shards.push_back(std::move(writer));
  }
  for (int i = 0; i < options.images; ++i) {
    const int label = static_cast<int>(rng() % options.classes);
    const int64_t height = side(rng), width = side(rng);
    SLUICE_ASSIGN_OR_RETURN(std::string jpeg, EncodeJpeg(Picture(height, width, label, rng)));
    if (options.on_image) SLUICE_RETURN_IF_ERROR(options.on_image(i, label, jpeg));
    tensorflow::Example example;
    auto& features = *example.mutable_features()->mutable_feature();
    features["image/encoded"].mutable_bytes_list()->add_value(std::move(jpeg));
    features["image/class/label"].mutable_int64_list()->add_value(label);
    SLUICE_RETURN_IF_ERROR(shards[i % options.shards]->WriteRecord(example.SerializeAsString()));
  }
  for (const std::unique_ptr<RecordWriter>& shard : shards) SLUICE_RETURN_IF_ERROR(shard->Close());
  return OkStatus();
}

Pipeline ImageNetTrainingInput(const std::string& dir, const ImageNetInputOptions& options) {
  const std::vector<FeatureConfig> features = {
      {.key = "image/encoded", .dtype = DType::kString},
      {.key = "image/class/label", .dtype = DType::kInt64},
  };
  // ImageNet's mean and std, on the 0-255 scale of the decoded pixels.
  const CropMirrorNormalizeOptions normalize{.mean = {0.485f * 255, 0.456f * 255, 0.406f * 255},
                                             .std = {0.229f * 255, 0.224f * 255, 0.225f * 255}};
  Pipeline records = Pipeline::ListFiles({.patterns = {dir + "/train-*.tfrecord"}, .seed = 1})
                         .Interleave(MakeTFRecordFunction({}), {.cycle_length = 4, .num_parallel_calls = 2});
  if (options.repeat) records = records.Repeat();
  // The pipeline seed gives the random functions theirs.
  return records.Shuffle({.buffer_size = 128, .seed = 42})
      .Seed(7)
      .Map(MakeParseExampleFunction("", features))
      .Map(MakeDecodeJpegRandomCropFunction("image/encoded", {}), {.num_parallel_calls = kAutotune})
      .Map(MakeRandomFlipFunction("image/encoded", {}), {.num_parallel_calls = kAutotune})
      .Map(MakeCropMirrorNormalizeFunction("image/encoded", normalize), {.num_parallel_calls = kAutotune})
      .Batch({.batch_size = options.batch_size, .drop_remainder = true})
      .Prefetch(kAutotune);
}

}  // namespace sluice::examples
