// The training demo as a program: writes its data under /tmp, trains,
// exports and predicts (see examples/train_demo.h).
#include <cstdio>
#include <filesystem>
#include <iostream>

#include "examples/train_demo.h"

int main() {
  const auto dir = std::filesystem::temp_directory_path() / "sluice_train_demo";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  auto result = sluice::RunTrainDemo({.work_dir = dir.string()}, std::cout);
  if (!result.ok()) {
    std::fprintf(stderr, "%s\n", result.status().ToString().c_str());
    return 1;
  }
  std::printf("validation accuracy %.4f\n", result->validation_accuracy);
  return result->validation_accuracy >= 0.97 && result->predictions[0] > 0.5 && result->predictions[1] < 0.5 ? 0 : 1;
}
