#include "sluice/dataset/list_files_dataset.h"

#include <glob.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "sluice/dataset/from_slices_dataset.h"
#include "sluice/dataset/op_spec.h"
#include "sluice/dataset/pipeline_spec.pb.h"
#include "sluice/dataset/shuffle_dataset.h"

namespace sluice {
namespace {

// The directory glob(3) could not open and why, for the error message.
// glob's error callback takes no context, hence a thread-local.
struct GlobFailure {
  std::string directory;
  int error = 0;
};
thread_local GlobFailure glob_failure;

int RecordGlobFailure(const char* directory, int error) {
  glob_failure = {directory, error};
  return 1;  // stop: the pattern cannot be expanded in full
}

}  // namespace

Result<std::vector<std::string>> MatchFiles(const std::vector<std::string>& patterns) {
  std::vector<std::string> files;
  for (const std::string& pattern : patterns) {
    glob_t matches{};
    glob_failure = {};
    const int rc = ::glob(pattern.c_str(), GLOB_ERR, RecordGlobFailure, &matches);
    if (rc == 0) {
      for (size_t i = 0; i < matches.gl_pathc; ++i) files.emplace_back(matches.gl_pathv[i]);
    }
    ::globfree(&matches);
    if (rc == GLOB_ABORTED) {
      const GlobFailure failure = glob_failure;
      const std::string why = StrCat("list_files: cannot expand pattern '", pattern, "': directory '",
                                     failure.directory, "' could not be read: ", std::strerror(failure.error));
      if (failure.error == ENOENT) return NotFoundError(why);
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
