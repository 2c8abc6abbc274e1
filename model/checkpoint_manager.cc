#include "sluice/model/checkpoint_manager.h"

#include <algorithm>
#include <charconv>
#include <filesystem>

namespace sluice {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kPrefix = "ckpt-";
constexpr std::string_view kSuffix = ".sluice";

// The step of a file named "ckpt-<step>.sluice" (decimal digits only).
std::optional<int64_t> StepOf(std::string_view name) {
  if (!name.starts_with(kPrefix) || !name.ends_with(kSuffix)) return std::nullopt;
  const std::string_view digits =
      name.substr(kPrefix.size(), name.size() - kPrefix.size() - kSuffix.size());
  if (digits.empty() || (digits.size() > 1 && digits[0] == '0')) return std::nullopt;
  int64_t step = 0;
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), step);
  if (error != std::errc() || end != digits.data() + digits.size() || step < 0) {
    return std::nullopt;
  }
  return step;
}

}  // namespace

CheckpointManager::CheckpointManager(std::string directory, int max_to_keep)
    : directory_(std::move(directory)), max_to_keep_(max_to_keep) {}

Result<std::string> CheckpointManager::Save(int64_t step, const CheckpointContents& contents) {
  SLUICE_CHECK(step >= 0) << "checkpoint step " << step;
  SLUICE_ASSIGN_OR_RETURN(std::optional<CheckpointInfo> latest, Latest());
  if (latest && latest->step > step) {
    return FailedPreconditionError("Cannot save step ", step, " in ", directory_, ": ",
                                   latest->path, " is newer (checkpoint steps must not go back)");
  }
  std::error_code error;
  fs::create_directories(directory_, error);
  if (error) return InternalError("Cannot create ", directory_, ": ", error.message());
  const std::string path = (fs::path(directory_) / StrCat(kPrefix, step, kSuffix)).string();
  SLUICE_RETURN_IF_ERROR(WriteCheckpointFile(path, contents));

  if (max_to_keep_ <= 0) return path;
  SLUICE_ASSIGN_OR_RETURN(std::vector<CheckpointInfo> all, All());
  const size_t excess =
      all.size() > static_cast<size_t>(max_to_keep_) ? all.size() - max_to_keep_ : 0;
  for (size_t i = 0; i < excess; ++i) {
    if (!fs::remove(all[i].path, error) && error) {
      return InternalError("Cannot delete old checkpoint ", all[i].path, ": ", error.message());
    }
  }
  return path;
}

Result<std::vector<CheckpointInfo>> CheckpointManager::All() const {
  std::vector<CheckpointInfo> all;
  std::error_code error;
  fs::directory_iterator it(directory_, error);
  if (error == std::errc::no_such_file_or_directory) return all;
  for (; !error && it != fs::directory_iterator(); it.increment(error)) {
    if (std::optional<int64_t> step = StepOf(it->path().filename().string())) {
      all.push_back({*step, it->path().string()});
    }
  }
  if (error) return InternalError("Cannot list ", directory_, ": ", error.message());
  std::sort(all.begin(), all.end(),
            [](const CheckpointInfo& a, const CheckpointInfo& b) { return a.step < b.step; });
  return all;
}

Result<std::optional<CheckpointInfo>> CheckpointManager::Latest() const {
  SLUICE_ASSIGN_OR_RETURN(std::vector<CheckpointInfo> all, All());
  if (all.empty()) return std::optional<CheckpointInfo>();
  return std::optional<CheckpointInfo>(all.back());
}

Result<CheckpointContents> CheckpointManager::RestoreLatest() const {
  SLUICE_ASSIGN_OR_RETURN(std::optional<CheckpointInfo> latest, Latest());
  if (!latest) return NotFoundError("No checkpoint (ckpt-<step>.sluice) in ", directory_);
  return ReadCheckpointFile(latest->path);
}

}  // namespace sluice
