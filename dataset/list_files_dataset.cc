#include "sluice/dataset/list_files_dataset.h"

#include <dirent.h>
#include <fnmatch.h>
#include <glob.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "sluice/dataset/from_slices_dataset.h"
#include "sluice/dataset/op_spec.h"
#include "sluice/dataset/pipeline_spec.pb.h"
#include "sluice/dataset/shuffle_dataset.h"

namespace sluice {
namespace {

// What one MatchFiles call's glob(3) reports through its callbacks, which
// take no context, hence a thread-local: the directory it could not open
// and why, and the count of entries that match a pattern's last component.
struct GlobListing {
  std::string failed_directory;
  int error = 0;
  const char* last_component = "";  // of the pattern being expanded
  uint64_t max_files = UINT64_MAX;
  uint64_t matched = 0;  // entries matching last_component, over the call's patterns
  bool past_max_files = false;
};
thread_local GlobListing listing;

int RecordGlobFailure(const char* directory, int error) {
  listing.failed_directory = directory;
  listing.error = error;
  return 1;  // stop: the pattern cannot be expanded in full
}

// glob's directory reading (GLOB_ALTDIRFUNC), counting as it goes: an entry
// matching the last component may be a match, so past max_files of them
// the listing ends early (glob then holds at most that many names), and
// MatchFiles refuses it.
void* OpenDirectory(const char* path) { return ::opendir(path); }
void CloseDirectory(void* directory) { ::closedir(static_cast<DIR*>(directory)); }
dirent* ReadEntry(void* directory) {
  if (listing.past_max_files) return nullptr;
  dirent* entry = ::readdir(static_cast<DIR*>(directory));
  if (entry != nullptr && ::fnmatch(listing.last_component, entry->d_name, FNM_PERIOD) == 0 &&
      ++listing.matched > listing.max_files) {
    listing.past_max_files = true;
    return nullptr;
  }
  return entry;
}
int StatPath(const char* path, struct stat* out) { return ::stat(path, out); }
int LstatPath(const char* path, struct stat* out) { return ::lstat(path, out); }

}  // namespace

Result<std::vector<std::string>> MatchFiles(const std::vector<std::string>& patterns, uint64_t max_files) {
  std::vector<std::string> files;
  listing = {.max_files = max_files};
  for (const std::string& pattern : patterns) {
    const size_t slash = pattern.rfind('/');
    listing.last_component = pattern.c_str() + (slash == std::string::npos ? 0 : slash + 1);
    listing.failed_directory.clear();
    listing.error = 0;
    glob_t matches{};
    matches.gl_opendir = OpenDirectory;
    matches.gl_readdir = ReadEntry;
    matches.gl_closedir = CloseDirectory;
    matches.gl_stat = StatPath;
    matches.gl_lstat = LstatPath;
    const int rc = ::glob(pattern.c_str(), GLOB_ERR | GLOB_ALTDIRFUNC, RecordGlobFailure, &matches);
    if (rc == 0) {
      for (size_t i = 0; i < matches.gl_pathc; ++i) files.emplace_back(matches.gl_pathv[i]);
    }
    ::globfree(&matches);
    // A pattern without wildcards is looked up, not listed: counted here.
    if (listing.past_max_files || files.size() > max_files) {
      return ResourceExhaustedError("list_files: the patterns match more than ", max_files,
                                    " files, the cap (counted up to pattern '", pattern, "')");
    }
    if (rc == GLOB_ABORTED) {
      const std::string why = StrCat("list_files: cannot expand pattern '", pattern, "': directory '",
                                     listing.failed_directory, "' could not be read: ", std::strerror(listing.error));
      if (listing.error == ENOENT) return NotFoundError(why);
      return InvalidArgumentError(why);
    }
    if (rc != 0 && rc != GLOB_NOMATCH) {
      return ResourceExhaustedError("list_files: cannot expand pattern '", pattern, "': out of memory");
    }
  }
  std::sort(files.begin(), files.end());
  files.erase(std::unique(files.begin(), files.end()), files.end());
  if (files.empty()) {
    std::string joined;
    for (const std::string& p : patterns) joined += (joined.empty() ? "" : ", ") + p;
    return NotFoundError("list_files: No files matched pattern: ", joined);
  }
  return files;
}

namespace {

class ListFilesDataset final : public Dataset {
 public:
  ListFilesDataset(ListFilesOptions options, int64_t count, DatasetPtr plan)
      : Dataset(plan->element_spec(), count), options_(std::move(options)), plan_(std::move(plan)) {}

  std::string_view op_name() const override { return "list_files"; }
  std::string DebugParams() const override {
    std::string patterns;
    for (const std::string& p : options_.patterns) patterns += (patterns.empty() ? "" : ", ") + p;
    return StrCat("patterns=[", patterns, "], shuffle=", options_.shuffle ? "true" : "false",
                  options_.seed ? StrCat(", seed=", *options_.seed) : std::string());
  }
  std::vector<DatasetPtr> inputs() const override { return {}; }
  std::unique_ptr<Iterator> NewIteratorInternal(const IteratorContext& ctx) const override {
    return plan_->NewIterator(ctx);
  }
  Status ToSpec(spec::Pipeline* pipeline) const override {
    auto* node = pipeline->add_ops()->mutable_list_files();
    for (const std::string& p : options_.patterns) node->add_patterns(p);
    node->set_shuffle(options_.shuffle);
    if (options_.seed) node->set_seed(*options_.seed);
    return OkStatus();
  }

 private:
  const ListFilesOptions options_;
  const DatasetPtr plan_;  // from_slices(files) [-> shuffle(all files)]
};

}  // namespace

Result<DatasetPtr> MakeListFilesDataset(ListFilesOptions options) {
  if (options.patterns.empty()) return InvalidArgumentError("list_files: no patterns given");
  SLUICE_ASSIGN_OR_RETURN(std::vector<std::string> files, MatchFiles(options.patterns));
  const int64_t count = static_cast<int64_t>(files.size());
  Tensor names = Tensor::Allocate(DType::kString, Shape{count});
  std::copy(files.begin(), files.end(), names.mutable_data<TString>());
  SLUICE_ASSIGN_OR_RETURN(DatasetPtr plan, MakeFromSlicesDataset({{"", names}}));
  if (options.shuffle) {
    SLUICE_ASSIGN_OR_RETURN(plan, MakeShuffleDataset(plan, {.buffer_size = count, .seed = options.seed}));
  }
  return DatasetPtr(std::make_shared<ListFilesDataset>(std::move(options), count, std::move(plan)));
}

Result<DatasetPtr> ListFilesDatasetFromSpec(const spec::DatasetNode& node, const OpSpecContext&) {
  const spec::ListFiles& list = node.list_files();
  ListFilesOptions options{.patterns = {list.patterns().begin(), list.patterns().end()}};
  if (list.has_shuffle()) options.shuffle = list.shuffle();
  if (list.has_seed()) options.seed = list.seed();
  return MakeListFilesDataset(std::move(options));
}

}  // namespace sluice
