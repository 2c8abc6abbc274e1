#include "sluice/dataset/labelled_files_dataset.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <system_error>

#include "sluice/dataset/from_slices_dataset.h"
#include "sluice/dataset/functions.h"
#include "sluice/dataset/map_dataset.h"
#include "sluice/dataset/op_spec.h"
#include "sluice/dataset/pipeline_spec.pb.h"
#include "sluice/dataset/shuffle_dataset.h"
#include "sluice/tfrecord/input_stream.h"

namespace sluice {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kOp = "labelled_files";

Status ListingError(std::string_view what, const fs::path& path, const std::error_code& error) {
  if (error == std::errc::no_such_file_or_directory) {
    return NotFoundError(kOp, ": ", what, " '", path.string(), "' does not exist");
  }
  return InvalidArgumentError(kOp, ": cannot read ", what, " '", path.string(), "': ", error.message());
}

bool EndsWithOneOf(const std::string& name, const std::vector<std::string>& extensions) {
  if (extensions.empty()) return true;
  return std::any_of(extensions.begin(), extensions.end(), [&](const std::string& extension) {
    return name.size() >= extension.size() &&
           std::equal(extension.rbegin(), extension.rend(), name.rbegin(), [](char a, char b) {
             return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
           });
  });
}

// The class directories: class_names as given, else every subdirectory of
// `root` not starting with '.', sorted.
Result<std::vector<std::string>> ClassNames(const fs::path& root, const std::vector<std::string>& given) {
  std::error_code error;
  if (!fs::is_directory(root, error)) {
    return error ? ListingError("directory", root, error)
                 : InvalidArgumentError(kOp, ": '", root.string(), "' is not a directory");
  }
  if (!given.empty()) {
    for (const std::string& name : given) {
      if (name.empty() || name == "." || name == ".." || name.find('/') != std::string::npos) {
        return InvalidArgumentError(kOp, ": class name '", name, "' is not a subdirectory's name");
      }
      if (!fs::is_directory(root / name, error)) {
        return NotFoundError(kOp, ": class '", name, "' has no subdirectory in '", root.string(), "'");
      }
    }
    return given;
  }
  std::vector<std::string> names;
  for (fs::directory_iterator it(root, error), end; !error && it != end; it.increment(error)) {
    const std::string name = it->path().filename().string();
    if (!name.starts_with(".") && it->is_directory(error)) names.push_back(name);
  }
  if (error) return ListingError("directory", root, error);
  std::sort(names.begin(), names.end());
  return names;
}

// Every file of every class, with its class index, sorted by path within a
// class; at most kMaxLabelledFiles.
Status ListFiles(const fs::path& root, const std::vector<std::string>& classes,
                 const std::vector<std::string>& extensions, std::vector<std::string>* paths,
                 std::vector<int64_t>* labels) {
  for (size_t label = 0; label < classes.size(); ++label) {
    const fs::path class_dir = root / classes[label];
    std::vector<std::string> files;
    std::error_code error;
    fs::recursive_directory_iterator it(class_dir, error), end;
    for (; !error && it != end; it.increment(error)) {
      const std::string name = it->path().filename().string();
      if (name.starts_with(".")) {
        if (it->is_directory(error)) it.disable_recursion_pending();
        continue;
      }
      if (!it->is_regular_file(error) || !EndsWithOneOf(name, extensions)) continue;
      if (static_cast<int64_t>(paths->size() + files.size()) >= kMaxLabelledFiles) {
        return ResourceExhaustedError(kOp, ": more than ", kMaxLabelledFiles, " files under '", root.string(), "'");
      }
      files.push_back(it->path().string());
    }
    if (error) return ListingError("directory", class_dir, error);
    std::sort(files.begin(), files.end());
    paths->insert(paths->end(), files.begin(), files.end());
    labels->insert(labels->end(), files.size(), static_cast<int64_t>(label));
  }
  if (paths->empty()) {
    return NotFoundError(kOp, ": no file", extensions.empty() ? "" : " with one of the extensions", " in the ",
                         classes.size(), " class directories of '", root.string(), "'");
  }
  return OkStatus();
}

// Keeps the entries at positions shard_index, shard_index + num_shards, ...
void KeepShard(int64_t num_shards, int64_t shard_index, std::vector<std::string>* paths, std::vector<int64_t>* labels) {
  size_t kept = 0;
  for (auto i = static_cast<size_t>(shard_index); i < paths->size(); i += static_cast<size_t>(num_shards)) {
    if (kept != i) (*paths)[kept] = std::move((*paths)[i]);
    (*labels)[kept] = (*labels)[i];
    ++kept;
  }
  paths->resize(kept);
  labels->resize(kept);
}

// The bytes of the file at `path`, at most max_bytes, read straight into
// the string the tensor copies.
Result<Tensor> ReadWholeFile(const std::string& path, int64_t max_bytes) {
  SLUICE_ASSIGN_OR_RETURN(std::unique_ptr<InputStream> stream, OpenFileInputStream(path));
  const auto limit = static_cast<size_t>(max_bytes);
  std::error_code error;
  const uintmax_t size_hint = fs::file_size(path, error);
  // One byte past the size, to see the end in the same pass.
  std::string bytes(error ? size_t{64} << 10 : static_cast<size_t>(std::min<uintmax_t>(size_hint, limit)) + 1, '\0');
  size_t used = 0;
  while (true) {
    if (used == bytes.size()) bytes.resize(std::min(bytes.size() * 2, limit + 1));
    SLUICE_ASSIGN_OR_RETURN(size_t n, stream->Read(bytes.data() + used, bytes.size() - used));
    if (n == 0) break;
    used += n;
    if (used > limit) {
      return ResourceExhaustedError(kOp, ": '", path, "' is larger than max_file_bytes (", max_bytes, ")");
    }
  }
  return Tensor::Scalar(std::string_view(bytes.data(), used));
}

class LabelledFilesDataset final : public Dataset {
 public:
  LabelledFilesDataset(LabelledFilesOptions options, int64_t count, DatasetPtr plan)
      : Dataset(plan->element_spec(), count), options_(std::move(options)), plan_(std::move(plan)) {}

  std::string_view op_name() const override { return kOp; }
  std::string DebugParams() const override {
    return StrCat("directory=", options_.directory, ", shuffle=", options_.shuffle ? "true" : "false",
                  options_.seed ? StrCat(", seed=", *options_.seed) : std::string(),
                  options_.num_shards > 1 ? StrCat(", shard ", options_.shard_index, " of ", options_.num_shards)
                                          : std::string());
  }
  std::vector<DatasetPtr> inputs() const override { return {}; }
  std::unique_ptr<Iterator> NewIteratorInternal(const IteratorContext& ctx) const override {
    return plan_->NewIterator(ctx);
  }
  Status ToSpec(spec::Pipeline* pipeline) const override {
    auto* node = pipeline->add_ops()->mutable_labelled_files();
    node->set_directory(options_.directory);
    for (const std::string& name : options_.class_names) node->add_class_names(name);
    for (const std::string& extension : options_.extensions) node->add_extensions(extension);
    node->set_shuffle(options_.shuffle);
    if (options_.seed) node->set_seed(*options_.seed);
    node->set_num_parallel_reads(options_.num_parallel_reads);
    node->set_max_file_bytes(options_.max_file_bytes);
    if (options_.num_shards > 1) {
      node->set_num_shards(options_.num_shards);
      node->set_shard_index(options_.shard_index);
    }
    return OkStatus();
  }

 private:
  const LabelledFilesOptions options_;
  const DatasetPtr plan_;  // from_slices(paths, labels) [-> shuffle(all files)] -> map(read)
};

}  // namespace

Result<DatasetPtr> MakeLabelledFilesDataset(LabelledFilesOptions options) {
  if (options.directory.empty()) return InvalidArgumentError(kOp, ": no directory given");
  if (options.num_parallel_reads < 1 && options.num_parallel_reads != kAutotune) {
    return InvalidArgumentError(kOp, ": num_parallel_reads must be >= 1 or autotune (-1), got ",
                                options.num_parallel_reads);
  }
  if (options.max_file_bytes < 1) {
    return InvalidArgumentError(kOp, ": max_file_bytes must be >= 1, got ", options.max_file_bytes);
  }
  if (options.num_shards < 1 || options.shard_index < 0 || options.shard_index >= options.num_shards) {
    return InvalidArgumentError(kOp, ": shard_index must be in [0, num_shards) and num_shards >= 1, got shard ",
                                options.shard_index, " of ", options.num_shards);
  }
  const fs::path root(options.directory);
  SLUICE_ASSIGN_OR_RETURN(std::vector<std::string> classes, ClassNames(root, options.class_names));
  std::vector<std::string> paths;
  std::vector<int64_t> labels;
  SLUICE_RETURN_IF_ERROR(ListFiles(root, classes, options.extensions, &paths, &labels));
  if (options.num_shards > 1) KeepShard(options.num_shards, options.shard_index, &paths, &labels);
  const auto count = static_cast<int64_t>(paths.size());
  Tensor path_tensor = Tensor::Allocate(DType::kString, Shape{count});
  std::copy(paths.begin(), paths.end(), path_tensor.mutable_data<TString>());
  SLUICE_ASSIGN_OR_RETURN(DatasetPtr plan, MakeFromSlicesDataset({{"path", std::move(path_tensor)},
                                                                  {"label", Tensor::FromVector(labels)}}));
  if (options.shuffle && count > 0) {
    SLUICE_ASSIGN_OR_RETURN(plan, MakeShuffleDataset(plan, {.buffer_size = count, .seed = options.seed}));
  }
  const ElementSpec read_spec{{"contents", DType::kString, PartialShape(Shape{})},
                              {"label", DType::kInt64, PartialShape(Shape{})},
                              {"path", DType::kString, PartialShape(Shape{})}};
  ElementFunctionPtr read = MakeLambdaFunction(
      [max_bytes = options.max_file_bytes](Element element) -> Result<Element> {
        const std::string path(element[0].scalar<TString>());
        SLUICE_ASSIGN_OR_RETURN(Tensor contents, ReadWholeFile(path, max_bytes));
        return Element{{std::move(contents), std::move(element[1]), std::move(element[0])}};
      },
      {.output_spec = read_spec});
  const int64_t parallel = options.num_parallel_reads == 1 ? 0 : options.num_parallel_reads;
  SLUICE_ASSIGN_OR_RETURN(plan, MakeMapDataset(std::move(plan), std::move(read), {.num_parallel_calls = parallel}));
  return DatasetPtr(std::make_shared<LabelledFilesDataset>(std::move(options), count, std::move(plan)));
}

Result<DatasetPtr> LabelledFilesDatasetFromSpec(const spec::DatasetNode& node, const OpSpecContext&) {
  const spec::LabelledFiles& files = node.labelled_files();
  LabelledFilesOptions options{.directory = files.directory(),
                               .class_names = {files.class_names().begin(), files.class_names().end()},
                               .extensions = {files.extensions().begin(), files.extensions().end()}};
  if (files.has_shuffle()) options.shuffle = files.shuffle();
  if (files.has_seed()) options.seed = files.seed();
  if (files.has_num_parallel_reads()) options.num_parallel_reads = files.num_parallel_reads();
  if (files.has_max_file_bytes()) options.max_file_bytes = files.max_file_bytes();
  if (files.has_num_shards()) options.num_shards = files.num_shards();
  if (files.has_shard_index()) options.shard_index = files.shard_index();
  return MakeLabelledFilesDataset(std::move(options));
}

}  // namespace sluice
