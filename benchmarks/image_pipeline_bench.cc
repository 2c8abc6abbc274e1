// The ImageNet-style training input pipeline of examples/imagenet_pipeline.cc
// (examples/imagenet_input.h: tfrecord -> shuffle -> parse_example ->
// decode_jpeg_random_crop 224 -> random_flip -> crop_mirror_normalize ->
// batch 32 -> prefetch), timed in images/s over its generated corpus.
// run_image_pipeline.sh runs it beside a torchvision DataLoader over the same
// JPEG files.
//   image_pipeline_bench write DIR [--images N]
//     writes the corpus as DIR/train-K-of-4.tfrecord and, for torchvision's
//     ImageFolder, as DIR/jpg/classL/I.jpg;
//   image_pipeline_bench run DIR [--batches B] [--warmup W] [--cpu-budget C]
//     prints "images_per_second X cores C" over B batches after W
//     (C = 0: the cores this process may use).
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "bench_util.h"
#include "sluice/dataset/runtime.h"
#include "sluice/examples/imagenet_input.h"

namespace sluice {
namespace {

constexpr int64_t kBatchSize = 32;

void Write(const std::string& dir, int images) {
  constexpr int kClasses = 8;
  for (int c = 0; c < kClasses; ++c) std::filesystem::create_directories(StrCat(dir, "/jpg/class", c));
  auto write_file = [&](int image, int label, const std::string& jpeg) -> Status {
    const std::string path = StrCat(dir, "/jpg/class", label, "/", image, ".jpg");
    if (!(std::ofstream(path, std::ios::binary) << jpeg)) return InternalError("cannot write ", path);
    return OkStatus();
  };
  Die(examples::WriteImageNetRecords(dir, {.images = images, .classes = kClasses, .on_image = write_file}),
      "writing the corpus");
}

void Run(const std::string& dir, int64_t batches, int64_t warmup, int cpu_budget) {
  const Pipeline pipeline = examples::ImageNetTrainingInput(dir, {.batch_size = kBatchSize, .repeat = true});
  Die(pipeline.Build(), "building the pipeline");
  IteratorContext ctx;
  ctx.runtime = Runtime::Create({.cpu_budget = cpu_budget});
  std::unique_ptr<Iterator> it = (*pipeline.Build())->MakeIterator(ctx);
  using Clock = std::chrono::steady_clock;
  Clock::time_point start;
  for (int64_t b = 0; b < warmup + batches; ++b) {
    if (b == warmup) start = Clock::now();
    Result<std::optional<Element>> next = it->GetNext();
    Die(next, "iterating");
    if (!next->has_value()) Die(InternalError("the repeated pipeline ended"), "iterating");
  }
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  std::printf("images_per_second %.1f cores %d\n", static_cast<double>(batches * kBatchSize) / seconds,
              ctx.runtime->options().cpu_budget);
}

// The value after `name` among the arguments after the folder, or `fallback`.
int64_t Flag(int argc, char** argv, const char* name, int64_t fallback) {
  for (int i = 3; i + 1 < argc; ++i) {
    if (std::strcmp(argv[i], name) == 0) return std::atoll(argv[i + 1]);
  }
  return fallback;
}

}  // namespace
}  // namespace sluice

int main(int argc, char** argv) {
  using namespace sluice;
  if (argc >= 3 && std::strcmp(argv[1], "write") == 0) {
    Write(argv[2], static_cast<int>(Flag(argc, argv, "--images", 512)));
    return 0;
  }
  if (argc >= 3 && std::strcmp(argv[1], "run") == 0) {
    Run(argv[2], Flag(argc, argv, "--batches", 40), Flag(argc, argv, "--warmup", 4),
        static_cast<int>(Flag(argc, argv, "--cpu-budget", 0)));
    return 0;
  }
  std::fprintf(stderr,
               "usage: image_pipeline_bench write DIR [--images N] | run DIR [--batches B] [--warmup W] "
               "[--cpu-budget C]\n");
  return 2;
}
