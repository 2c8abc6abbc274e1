// sluice demo: the end-to-end training job on generated data (the README's
// first command). The work is examples/train_demo.cc, shared with the
// train_demo example program.
#include <filesystem>
#include <iostream>

#include "examples/train_demo.h"
#include "tools/commands.h"
#include "tools/flags.h"

namespace sluice::cli {

Status DemoCommand(const CommandArgs& args) {
  TrainDemoOptions options;
  SLUICE_ASSIGN_OR_RETURN(const int64_t epochs, CountFlag(args, "--epochs", options.epochs, /*min=*/1));
  options.epochs = static_cast<int>(epochs);
  options.work_dir = FlagOr(args, "--dir", (std::filesystem::temp_directory_path() / "sluice_demo").string());
  std::filesystem::remove_all(options.work_dir);
  std::filesystem::create_directories(options.work_dir);
  SLUICE_ASSIGN_OR_RETURN(TrainDemoResult result, RunTrainDemo(options, std::cout));
  std::cout << "\nValidation accuracy " << result.validation_accuracy << "\n";
  return OkStatus();
}

}  // namespace sluice::cli
