// An ImageNet-style training input pipeline, end to end, on JPEG images it
// makes itself: 256 pictures of 200-500 px a side, JPEG-encoded
// (libjpeg-turbo) into tf.train.Example records (`image/encoded`,
// `image/class/label`) in 4 TFRecord shards, then read as a ResNet training
// job reads ImageNet (examples/imagenet_input.h):
//   list_files -> interleave(tfrecord) -> shuffle -> parse_example ->
//   decode_jpeg_random_crop 224 -> random_flip ->
//   crop_mirror_normalize (ImageNet mean/std, CHW float32) -> batch -> prefetch
// Every random draw depends only on (the pipeline seed, the map, the epoch,
// the element's position in the map's input), so the batches are the same
// at any parallelism.
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

#include "sluice/dataset/pipeline_spec_io.h"
#include "sluice/examples/imagenet_input.h"

using namespace sluice;

namespace {

constexpr int64_t kBatchSize = 32;
constexpr int kBatches = 4;

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
  const examples::ImageNetRecordsOptions records;
  if (Status written = examples::WriteImageNetRecords(dir, records); !written.ok()) {
    return std::printf("%s\n", written.ToString().c_str()), 1;
  }
  const Pipeline pipeline = examples::ImageNetTrainingInput(dir, {.batch_size = kBatchSize});
  if (print_spec) {
    Result<std::string> text = SpecText(pipeline);
    if (!text.ok()) return std::printf("%s\n", text.status().ToString().c_str()), 1;
    return std::printf("%s", text->c_str()), 0;
  }
  std::printf("wrote %d JPEG images in %d TFRecord shards to %s\n", records.images, records.shards, dir.c_str());

  int batches = 0;
  bool shapes_ok = true;
  auto elements = pipeline.Take(kBatches).Elements();
  for (const Element& batch : elements) {
    // (image/encoded, image/class/label), batched.
    const Tensor& images = batch[0];
    const Tensor& labels = batch[1];
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
