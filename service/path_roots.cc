#include "sluice/service/path_roots.h"

#include <filesystem>

#include "sluice/dataset/plugin.h"

namespace sluice::service {
namespace {

namespace fs = std::filesystem;
using Node = spec::DatasetNode;

std::string JoinRoots(const std::vector<std::string>& roots) {
  std::string out;
  for (const std::string& root : roots) out += (out.empty() ? "" : ", ") + root;
  return out;
}

// Whether interleave's input at ops[i] carries file names straight from a
// list_files source: ops[0] is list_files and everything between only
// reorders, drops or repeats its names.
bool NamesComeFromListFiles(const spec::Pipeline& pipeline, int interleave_index) {
  if (pipeline.ops(0).op_case() != Node::kListFiles) return false;
  for (int i = 1; i < interleave_index; ++i) {
    switch (pipeline.ops(i).op_case()) {
      case Node::kShuffle:
      case Node::kShard:
      case Node::kRepeat:
      case Node::kTake:
      case Node::kSkip:
      case Node::kPrefetch:
      case Node::kCache: break;
      default: return false;
    }
  }
  return true;
}

}  // namespace

Result<PathRoots> PathRoots::Make(const std::vector<std::string>& roots) {
  std::vector<std::string> canonical;
  for (const std::string& root : roots) {
    std::error_code error;
    const fs::path path = fs::canonical(root, error);
    if (error || !fs::is_directory(path, error)) {
      return InvalidArgumentError("allowed root '", root, "' is not a directory",
                                  error ? StrCat(": ", error.message()) : "");
    }
    std::string text = path.string();
    if (text.back() != '/') text += '/';
    canonical.push_back(std::move(text));
  }
  return PathRoots(std::move(canonical));
}

Status PathRoots::CheckPath(const std::string& path) const {
  std::error_code error;
  fs::path absolute = fs::absolute(path, error);
  if (error) return InvalidArgumentError("cannot make '", path, "' absolute: ", error.message());
  for (const fs::path& part : absolute) {
    if (part == "..") return InvalidArgumentError("path '", path, "' has a '..' component; paths must stay under ", JoinRoots(roots_));
  }
  const std::string normal = absolute.lexically_normal().string();
  for (const std::string& root : roots_) {
    if (normal.size() > root.size() && normal.compare(0, root.size(), root) == 0) return OkStatus();
  }
  return InvalidArgumentError("path '", path, "' is outside the roots this server may read (",
                               roots_.empty() ? "none" : JoinRoots(roots_), "; see --allow-root)");
}

Status PathRoots::CheckPipeline(const spec::Pipeline& pipeline, const std::string& where) const {
  for (int i = 0; i < pipeline.ops_size(); ++i) {
    const Node& node = pipeline.ops(i);
    const std::string context = StrCat(where, "ops[", i, "]");
    switch (node.op_case()) {
      case Node::kTfrecord:
        for (const std::string& file : node.tfrecord().files()) {
          SLUICE_RETURN_IF_ERROR(CheckPath(file).WithContext(StrCat(context, " (tfrecord)")));
        }
        break;
      case Node::kListFiles:
        for (const std::string& pattern : node.list_files().patterns()) {
          SLUICE_RETURN_IF_ERROR(CheckPath(pattern).WithContext(StrCat(context, " (list_files)")));
        }
        break;
      case Node::kInterleave: {
        const spec::Pipeline& function = node.interleave().function();
        if (function.ops_size() > 0 && function.ops(0).has_element_source() &&
            function.ops(0).element_source().kind() == spec::ElementSource::TFRECORD &&
            !NamesComeFromListFiles(pipeline, i)) {
          return InvalidArgumentError(context, " (interleave): a TFRECORD element_source reads files named by "
                                       "elements, which a server accepts only straight from a list_files source");
        }
        SLUICE_RETURN_IF_ERROR(CheckPipeline(function, StrCat(context, " (interleave) function: ")));
        break;
      }
      case Node::kZip:
        for (int j = 0; j < node.zip().others_size(); ++j) {
          SLUICE_RETURN_IF_ERROR(CheckPipeline(node.zip().others(j), StrCat(context, " (zip) others[", j, "]: ")));
        }
        break;
      case Node::kConcatenate:
        SLUICE_RETURN_IF_ERROR(CheckPipeline(node.concatenate().other(), StrCat(context, " (concatenate) other: ")));
        break;
      default: break;
    }
  }
  return OkStatus();
}

Status PathRoots::CheckSpec(const spec::Pipeline& pipeline) const {
  for (const std::string& plugin : PluginPathsInSpec(pipeline)) {
    SLUICE_RETURN_IF_ERROR(CheckPath(plugin).WithContext("plugin library"));
  }
  return CheckPipeline(pipeline, "");
}

}  // namespace sluice::service
