// sluice demo: the end-to-end training job on generated data (the README's
// first command). The work is examples/train_demo.cc, shared with the
// train_demo example program.
//
// The demo owns its working directory: it replaces what an earlier demo
// left there, so it only takes a directory that does not exist yet, is
// empty, or holds the kDemoMarker file it writes into every directory it
// uses. Anything else (a file, a directory of the user's) is refused and
// left untouched.
#include <filesystem>
#include <fstream>
#include <iostream>
#include <vector>

#include "sluice/examples/train_demo.h"
#include "sluice/tools/commands.h"
#include "sluice/tools/flags.h"

namespace sluice::cli {
namespace {

namespace fs = std::filesystem;

constexpr const char* kDemoMarker = ".sluice-demo";

Status FileSystemError(std::string_view what, const fs::path& path, const std::error_code& error) {
  return FailedPreconditionError("demo: ", what, " '", path.string(), "': ", error.message());
}

// Makes `dir` an empty directory holding only the demo's marker, or says why
// it may not.
Status PrepareWorkDir(const fs::path& dir) {
  std::error_code error;
  const fs::file_status status = fs::status(dir, error);
  if (error && status.type() != fs::file_type::not_found) return FileSystemError("cannot examine", dir, error);
  if (fs::exists(status)) {
    if (!fs::is_directory(status)) {
      return FailedPreconditionError("demo: --dir '", dir.string(),
                                     "' exists and is not a directory; give a new or empty directory");
    }
    const bool ours = fs::exists(dir / kDemoMarker, error);
    std::vector<fs::path> entries;
    for (fs::directory_iterator it(dir, error), end; !error && it != end; it.increment(error)) {
      entries.push_back(it->path());
    }
    if (error) return FileSystemError("cannot list", dir, error);
    if (!ours && !entries.empty()) {
      return FailedPreconditionError("demo: --dir '", dir.string(), "' is not empty and was not made by sluice demo (",
                                     "it has no ", kDemoMarker, " file); give a new or empty directory");
    }
    for (const fs::path& entry : entries) {
      fs::remove_all(entry, error);
      if (error) return FileSystemError("cannot remove", entry, error);
    }
  }
  fs::create_directories(dir, error);
  if (error) return FileSystemError("cannot create", dir, error);
  std::ofstream marker(dir / kDemoMarker);
  marker << "Made by sluice demo; the next demo run with this --dir replaces everything here.\n";
  marker.close();
  if (!marker) return FailedPreconditionError("demo: cannot write '", (dir / kDemoMarker).string(), "'");
  return OkStatus();
}

}  // namespace

Status DemoCommand(const CommandArgs& args) {
  TrainDemoOptions options;
  SLUICE_ASSIGN_OR_RETURN(const int64_t epochs, CountFlag(args, "--epochs", options.epochs, /*min=*/1, /*max=*/1000));
  options.epochs = static_cast<int>(epochs);
  options.work_dir = FlagOr(args, "--dir");
  if (options.work_dir.empty()) {
    std::error_code error;
    const fs::path temp = fs::temp_directory_path(error);
    if (error) return FailedPreconditionError("demo: no temporary directory for the default --dir: ", error.message());
    options.work_dir = (temp / "sluice_demo").string();
  }
  SLUICE_RETURN_IF_ERROR(PrepareWorkDir(options.work_dir));
  SLUICE_ASSIGN_OR_RETURN(TrainDemoResult result, RunTrainDemo(options, std::cout));
  std::cout << "\nValidation accuracy " << result.validation_accuracy << "\n";
  return OkStatus();
}

}  // namespace sluice::cli
