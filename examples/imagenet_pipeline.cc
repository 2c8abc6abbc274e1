// An ImageNet-style training input pipeline, end to end, on JPEG images it
// makes itself: a few hundred pictures of 200-500 px a side, JPEG-encoded
// (libjpeg-turbo) into tf.train.Example records (`image/encoded`,
// `image/class/label`) in 4 TFRecord shards, then read as a ResNet training
// job reads ImageNet:
//   list_files -> interleave(tfrecord) -> shuffle -> parse_example ->
//   enumerate -> decode_jpeg_random_crop 224 -> random_flip ->
//   crop_mirror_normalize (ImageNet mean/std, CHW float32) -> batch -> prefetch
// Every random draw depends only on (seed, the element's enumerate index),
// so the batches are the same at any parallelism.
//
//   imagenet_pipeline [--dir DIR] [--keep]
// writes the records to DIR (default: a folder in the temp directory),
// prints the shapes of the first batches and exits 0 when they are right.
//   imagenet_pipeline --dir DIR --print-spec
// writes and keeps the records, and prints the pipeline as a spec instead:
// examples/specs/imagenet_train.pbtxt is that spec for --dir
// imagenet_records, which `sluice run` runs from the folder above the records.
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <random>

#include "sluice/dataset/image_functions.h"
#include "sluice/dataset/parse_example.h"
#include "sluice/dataset/pipeline_spec_io.h"
#include "sluice/dataset/pipeline.h"
#include "sluice/ops/encode_jpeg.h"
#include "sluice/tfrecord/example.pb.h"
#include "sluice/tfrecord/record_writer.h"

using namespace sluice;

namespace {

constexpr int kShards = 4;
constexpr int kImagesPerShard = 64;
constexpr int kClasses = 10;
constexpr int64_t kBatchSize = 32;
constexpr int kBatches = 4;

// A height x width RGB picture: a class-coloured gradient with stripes and
// noise, so that the JPEG encoder and the decoder have real work to do.
Tensor Picture(int64_t height, int64_t width, int label, std::mt19937& rng) {
  Tensor image = Tensor::Allocate(DType::kUInt8, Shape{height, width, 3});
  uint8_t* p = image.mutable_data<uint8_t>();
  std::uniform_int_distribution<int> noise(0, 15);
  for (int64_t y = 0; y < height; ++y) {
    for (int64_t x = 0; x < width; ++x) {
      const int stripe = ((x + y * label) / 24) % 2 * 50;
      *p++ = static_cast<uint8_t>((x * 255 / width + label * 25 + noise(rng)) % 256);
      *p++ = static_cast<uint8_t>((y * 255 / height + stripe + noise(rng)) % 256);
      *p++ = static_cast<uint8_t>((label * 40 + stripe + noise(rng)) % 256);
    }
  }
  return image;
}

Status WriteRecords(const std::string& dir) {
  std::mt19937 rng(2026);
  std::uniform_int_distribution<int64_t> side(200, 500);
  for (int shard = 0; shard < kShards; ++shard) {
    SLUICE_ASSIGN_OR_RETURN(std::unique_ptr<RecordWriter> writer,
                            RecordWriter::Open(StrCat(dir, "/train-", shard, "-of-", kShards, ".tfrecord")));
    for (int i = 0; i < kImagesPerShard; ++i) {
      const int label = static_cast<int>(rng() % kClasses);
      SLUICE_ASSIGN_OR_RETURN(std::string jpeg, EncodeJpeg(Picture(side(rng), side(rng), label, rng)));
      tensorflow::Example example;
      auto& features = *example.mutable_features()->mutable_feature();
      features["image/encoded"].mutable_bytes_list()->add_value(std::move(jpeg));
      features["image/class/label"].mutable_int64_list()->add_value(label);
      SLUICE_RETURN_IF_ERROR(writer->WriteRecord(example.SerializeAsString()));
    }
    SLUICE_RETURN_IF_ERROR(writer->Close());
  }
  return OkStatus();
}

Pipeline TrainingInput(const std::string& dir) {
  const std::vector<FeatureConfig> features = {
      {.key = "image/encoded", .dtype = DType::kString},
      {.key = "image/class/label", .dtype = DType::kInt64},
  };
  // ImageNet's mean and std, on the 0-255 scale of the decoded pixels.
  const CropMirrorNormalizeOptions normalize{.mean = {0.485f * 255, 0.456f * 255, 0.406f * 255},
                                             .std = {0.229f * 255, 0.224f * 255, 0.225f * 255}};
  return Pipeline::ListFiles({.patterns = {dir + "/train-*.tfrecord"}, .seed = 1})
      .Interleave(MakeTFRecordFunction({}), {.cycle_length = kShards, .num_parallel_calls = 2})
      .Shuffle({.buffer_size = 128, .seed = 42})
      .Map(MakeParseExampleFunction("", features))
      .Enumerate()
      .Map(MakeDecodeJpegRandomCropFunction("image/encoded", {.random = {.seed = 7}}),
           {.num_parallel_calls = kAutotune})
      .Map(MakeRandomFlipFunction("image/encoded", {.random = {.seed = 8}}), {.num_parallel_calls = kAutotune})
      .Map(MakeCropMirrorNormalizeFunction("image/encoded", normalize), {.num_parallel_calls = kAutotune})
      .Batch({.batch_size = kBatchSize, .drop_remainder = true})
      .Prefetch(kAutotune);
}

// The pipeline as a text spec (dataset/pipeline_spec_io.h).
Result<std::string> SpecText(const Pipeline& pipeline) {
  SLUICE_ASSIGN_OR_RETURN(const DatasetPtr dataset, pipeline.Build());
  SLUICE_ASSIGN_OR_RETURN(const spec::Pipeline spec, DatasetToSpec(*dataset));
  return SpecToText(spec);
}

}  // namespace

int main(int argc, char** argv) {
  std::string dir = (std::filesystem::temp_directory_path() / "sluice_imagenet_pipeline").string();
  bool keep = false, print_spec = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--dir") == 0 && i + 1 < argc) {
      dir = argv[++i];
    } else if (std::strcmp(argv[i], "--keep") == 0) {
      keep = true;
    } else if (std::strcmp(argv[i], "--print-spec") == 0) {
      print_spec = true;
    } else {
      return std::printf("usage: imagenet_pipeline [--dir DIR] [--keep | --print-spec]\n"), 2;
    }
  }
  std::filesystem::create_directories(dir);
  if (Status written = WriteRecords(dir); !written.ok()) return std::printf("%s\n", written.ToString().c_str()), 1;
  if (print_spec) {
    Result<std::string> text = SpecText(TrainingInput(dir));
    if (!text.ok()) return std::printf("%s\n", text.status().ToString().c_str()), 1;
    return std::printf("%s", text->c_str()), 0;
  }
  std::printf("wrote %d JPEG images in %d TFRecord shards to %s\n", kShards * kImagesPerShard, kShards, dir.c_str());

  int batches = 0;
  bool shapes_ok = true;
  auto elements = TrainingInput(dir).Take(kBatches).Elements();
  for (const Element& batch : elements) {
    // (index, image/encoded, image/class/label), batched.
    const Tensor& images = batch[1];
    const Tensor& labels = batch[2];
    std::printf("%s\n", StrCat("batch ", batches, ": images ", images.dtype(), images.shape(), ", labels ",
                               labels.dtype(), labels.shape()).c_str());
    shapes_ok = shapes_ok && images.dtype() == DType::kFloat32 && images.shape() == Shape{kBatchSize, 3, 224, 224} &&
                labels.dtype() == DType::kInt64 && labels.shape() == Shape{kBatchSize};
    ++batches;
  }
  if (!elements.status().ok()) return std::printf("%s\n", elements.status().ToString().c_str()), 1;
  if (!keep) std::filesystem::remove_all(dir);
  if (batches != kBatches || !shapes_ok) return std::printf("unexpected batches\n"), 1;
  std::printf("%d batches of [%lld, 3, 224, 224] float32 images\n", batches, static_cast<long long>(kBatchSize));
  return 0;
}
