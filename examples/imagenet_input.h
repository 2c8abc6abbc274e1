// The ImageNet-style training input that examples/imagenet_pipeline.cc
// shows and benchmarks/image_pipeline_bench.cc times, and the generated
// corpus it reads: JPEG pictures in TFRecord files of tf.train.Example
// records with `image/encoded` and `image/class/label`, as ImageNet's
// TFRecord conversion writes them.
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "sluice/dataset/pipeline.h"

namespace sluice::examples {

struct ImageNetRecordsOptions {
  int shards = 4;        // DIR/train-K-of-SHARDS.tfrecord, images dealt round-robin
  int images = 256;
  int classes = 10;
  uint32_t seed = 2026;  // the pictures, their sizes and labels
  // Called with each image's number, label and JPEG bytes (e.g. to write
  // the same corpus as image files too); none by default.
  std::function<Status(int image, int label, const std::string& jpeg)> on_image;
};

// Writes options.images pictures (sides 200-500 px, gradients, texture and
// noise, so that decoding costs what it does on photos), JPEG-encoded at
// quality 90 with 4:2:0 chroma, as tf.train.Example records into `dir`.
Status WriteImageNetRecords(const std::string& dir, const ImageNetRecordsOptions& options = {});

struct ImageNetInputOptions {
  int64_t batch_size = 32;
  bool repeat = false;  // the records over and over, drawing anew each pass
};

// list_files(dir/train-*.tfrecord) -> interleave(tfrecord) [-> repeat] ->
// shuffle -> parse_example -> decode_jpeg_random_crop 224 -> random_flip ->
// crop_mirror_normalize (ImageNet mean/std, CHW float32) -> batch ->
// prefetch: elements (image/encoded, image/class/label) of float32
// [B, 3, 224, 224], int64 [B]. The random functions take their seeds from
// the pipeline seed 7 (Pipeline::Seed) and draw anew each epoch.
Pipeline ImageNetTrainingInput(const std::string& dir, const ImageNetInputOptions& options = {});

}  // namespace sluice::examples
