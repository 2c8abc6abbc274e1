#include "sluice/service/path_roots.h"

#include <filesystem>

#include <google/protobuf/descriptor.h>
#include <google/protobuf/message.h>

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

// Whether an element_source reads the files its elements name.
bool ReadsFilesOfElements(const spec::ElementSource& source) {
  return source.kind() == spec::ElementSource::TFRECORD || source.kind() == spec::ElementSource::TEXT_LINE ||
         source.kind() == spec::ElementSource::CSV || source.kind() == spec::ElementSource::FIXED_LENGTH_RECORD;
}
std::string KindName(const spec::ElementSource& source) { return spec::ElementSource::Kind_Name(source.kind()); }

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

Status PathRoots::CheckFields(const google::protobuf::Message& message, const std::string& where) const {
  using google::protobuf::FieldDescriptor;
  const google::protobuf::Reflection& reflection = *message.GetReflection();
  std::vector<const FieldDescriptor*> fields;
  reflection.ListFields(message, &fields);
  for (const FieldDescriptor* field : fields) {
    const int count = field->is_repeated() ? reflection.FieldSize(message, field) : 1;
    for (int i = 0; i < count; ++i) {
      const std::string path = StrCat(where, where.empty() ? "" : ".", field->name(),
                                      field->is_repeated() ? StrCat("[", i, "]") : "");
      if (field->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) {
        const google::protobuf::Message& child = field->is_repeated() ? reflection.GetRepeatedMessage(message, field, i)
                                                                      : reflection.GetMessage(message, field);
        if (const auto* pipeline = dynamic_cast<const spec::Pipeline*>(&child)) {
          SLUICE_RETURN_IF_ERROR(CheckPipeline(*pipeline, path));
        } else {
          SLUICE_RETURN_IF_ERROR(CheckFields(child, path));
        }
        continue;
      }
      const spec::FileAccess access = field->options().GetExtension(spec::file_access);
      if (access == spec::FILE_ACCESS_NONE) continue;
      const std::string value = field->is_repeated() ? reflection.GetRepeatedString(message, field, i)
                                                     : reflection.GetString(message, field);
      if (access == spec::WRITE) {
        return InvalidArgumentError(path, " names '", value, "', a directory the op would write; a data-service ",
                                    "server only reads files a spec names");
      }
      // Files to read, and plugin libraries, which the server's operator
      // placed under a root: a client can write no file there.
      SLUICE_RETURN_IF_ERROR(CheckPath(value).WithContext(path));
    }
  }
  return OkStatus();
}

Status PathRoots::CheckPipeline(const spec::Pipeline& pipeline, const std::string& where) const {
  for (int i = 0; i < pipeline.ops_size(); ++i) {
    const Node& node = pipeline.ops(i);
    const std::string context = StrCat(where, where.empty() ? "" : ".", "ops[", i, "]");
    if (node.has_element_source() && ReadsFilesOfElements(node.element_source())) {
      return InvalidArgumentError(context, " (element_source): a ", KindName(node.element_source()),
                                  " element_source reads files named by elements, which a server accepts only as "
                                  "the function of an interleave that follows a list_files source");
    }
    // interleave's and flat_map's functions may read the files their
    // input names, when the names come straight from list_files.
    if (node.has_interleave() || node.has_flat_map()) {
      const char* op = node.has_interleave() ? "interleave" : "flat_map";
      const spec::Pipeline& function =
          node.has_interleave() ? node.interleave().function() : node.flat_map().function();
      if (function.ops_size() > 0 && function.ops(0).has_element_source() &&
          ReadsFilesOfElements(function.ops(0).element_source())) {
        if (!NamesComeFromListFiles(pipeline, i)) {
          return InvalidArgumentError(context, " (", op, "): a ", KindName(function.ops(0).element_source()),
                                      " element_source reads files named by elements, which a server accepts only "
                                      "straight from a list_files source");
        }
        // The function's other ops, after its checked element_source.
        spec::Pipeline rest = function;
        rest.mutable_ops()->DeleteSubrange(0, 1);
        SLUICE_RETURN_IF_ERROR(CheckPipeline(rest, StrCat(context, ".", op, ".function (after ops[0])")));
        continue;
      }
    }
    SLUICE_RETURN_IF_ERROR(CheckFields(node, context));
  }
  return OkStatus();
}

Status PathRoots::CheckSpec(const spec::Pipeline& pipeline) const { return CheckPipeline(pipeline, ""); }

}  // namespace sluice::service
