// The training demo as a program: writes its data under /tmp, trains,
// exports and predicts (see examples/train_demo.h).
#include <cstdio>
#include <filesystem>
#include <iostream>

#include "sluice/examples/train_demo.h"

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
  // The acceptance: accuracy, predictions on the right sides of 0.5,
  // and the reloaded export agreeing with the model in process.
  const bool exported_agrees = result->exported_predictions[0] == result->predictions[0] &&
                               result->exported_predictions[1] == result->predictions[1];
  return result->validation_accuracy >= 0.97 && result->predictions[0] > 0.5 && result->predictions[1] < 0.5 &&
                 exported_agrees
             ? 0
             : 1;
}
