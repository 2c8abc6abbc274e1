#include "sluice/model/preprocessing_file.h"

#include <google/protobuf/descriptor.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <set>

#include "sluice/dataset/builtin_functions.h"
#include "sluice/dataset/pipeline_spec.pb.h"
#include "sluice/dataset/text_proto_file.h"
#include "sluice/model/model.pb.h"

namespace sluice {
namespace {

namespace fs = std::filesystem;

constexpr char kPreprocessingFile[] = "preprocessing.pb";
constexpr char kAssetsFolder[] = "assets";

// Replaces each file that `message` (a function's spec, or a message in
// it) names, a string field marked (file_access) = READ in
// dataset/pipeline_spec.proto, by what `rewrite` makes of it. A field that
// writes files or loads code has no place in a bundle.
Status RewriteFilePaths(google::protobuf::Message& message,
                        const std::function<Result<std::string>(const std::string&)>& rewrite) {
  using google::protobuf::FieldDescriptor;
  const google::protobuf::Descriptor& descriptor = *message.GetDescriptor();
  const google::protobuf::Reflection& reflection = *message.GetReflection();
  for (int f = 0; f < descriptor.field_count(); ++f) {
    const FieldDescriptor* field = descriptor.field(f);
    const int values = field->is_repeated() ? reflection.FieldSize(message, field)
                                            : static_cast<int>(reflection.HasField(message, field));
    if (values == 0) continue;
    if (field->message_type() != nullptr) {
      for (int i = 0; i < values; ++i) {
        google::protobuf::Message& nested = field->is_repeated() ? *reflection.MutableRepeatedMessage(&message, field, i)
                                                                 : *reflection.MutableMessage(&message, field);
        SLUICE_RETURN_IF_ERROR(RewriteFilePaths(nested, rewrite));
      }
    } else if (const spec::FileAccess access = field->options().GetExtension(spec::file_access);
               access == spec::READ) {
      for (int i = 0; i < values; ++i) {
        const std::string stored =
            field->is_repeated() ? reflection.GetRepeatedString(message, field, i) : reflection.GetString(message, field);
        SLUICE_ASSIGN_OR_RETURN(std::string rewritten, rewrite(stored));
        field->is_repeated() ? reflection.SetRepeatedString(&message, field, i, std::move(rewritten))
                             : reflection.SetString(&message, field, std::move(rewritten));
      }
    } else if (access != spec::FILE_ACCESS_NONE) {
      return InvalidArgumentError("its field ", field->name(), " ",
                                  access == spec::WRITE ? "writes files" : "loads code",
                                  ", which an exported model cannot carry");
    }
  }
  return OkStatus();
}

// Copies the files functions name into a bundle's assets/, each once.
class AssetCopier {
 public:
  explicit AssetCopier(fs::path bundle) : bundle_(std::move(bundle)) {}

  // The path, relative to the bundle, of the copy of `source`.
  Result<std::string> Copy(const std::string& source) {
    std::error_code error;
    const std::string key = fs::weakly_canonical(source, error).string();
    if (auto found = copied_.find(key); found != copied_.end()) return found->second;
    std::string name = fs::path(source).filename().string();
    if (!used_names_.insert(name).second) name = StrCat(copied_.size(), "_", name);
    used_names_.insert(name);
    const std::string relative = (fs::path(kAssetsFolder) / name).string();
    fs::create_directories(bundle_ / kAssetsFolder, error);
    if (error || !fs::copy_file(source, bundle_ / relative, error)) {
      return InvalidArgumentError("cannot copy '", source, "' into the bundle's ", kAssetsFolder, "/: ",
                                  error.message());
    }
    copied_.emplace(key, relative);
    return relative;
  }

 private:
  const fs::path bundle_;
  std::map<std::string, std::string> copied_;  // canonical source -> relative copy
  std::set<std::string> used_names_;
};

// A stored path resolved against the bundle; one that could leave it
// (absolute, or with a "..") is refused.
Result<std::string> ResolveInBundle(const fs::path& bundle, const std::string& stored) {
  const fs::path relative(stored);
  bool escapes = relative.is_absolute();
  for (const fs::path& part : relative) escapes |= part == "..";
  if (escapes) return InvalidArgumentError("it names '", stored, "', which lies outside the bundle");
  return (bundle / relative).string();
}

}  // namespace

Status WritePreprocessing(const Preprocessing& preprocessing, const std::string& bundle) {
  model::Preprocessing out;
  for (const InputSignature& input : preprocessing.raw_inputs) InputSignatureToProto(input, out.add_raw_inputs());
  AssetCopier assets{fs::path(bundle)};
  for (size_t i = 0; i < preprocessing.functions.size(); ++i) {
    const ElementFunction& fn = *preprocessing.functions[i];
    spec::ElementFunction fn_spec;
    Status written = fn.ToSpec(&fn_spec);
    if (written.ok()) {
      written = RewriteFilePaths(fn_spec, [&](const std::string& path) { return assets.Copy(path); });
    }
    if (!written.ok()) {
      return InvalidArgumentError("export: preprocessing function ", i, " (", fn.name(), "): ", written.message());
    }
    out.add_functions(fn_spec.SerializeAsString());
  }
  const fs::path path = fs::path(bundle) / kPreprocessingFile;
  std::ofstream file(path, std::ios::binary);
  if (!out.SerializeToOstream(&file) || !file.flush()) return InternalError("export: cannot write ", path.string());
  return OkStatus();
}

Result<std::optional<Preprocessing>> ReadPreprocessing(const std::string& bundle) {
  const fs::path path = fs::path(bundle) / kPreprocessingFile;
  std::error_code error;
  if (!fs::exists(path, error)) return std::optional<Preprocessing>();
  const std::string where = StrCat("exported model: ", path.string());
  Result<std::string> bytes =
      ReadTextFile(path.string(), {"exported model preprocessing", kMaxPreprocessingBytes, "kMaxPreprocessingBytes"});
  if (!bytes.ok()) return DataLossError(where, ": ", bytes.status().message());
  model::Preprocessing proto;
  if (!proto.ParseFromString(*bytes)) return DataLossError(where, " is not a sluice.model.Preprocessing message");
  if (static_cast<size_t>(proto.raw_inputs_size()) > kMaxRawInputs ||
      static_cast<size_t>(proto.functions_size()) > kMaxPreprocessingFunctions) {
    return DataLossError(where, ": ", proto.raw_inputs_size(), " raw inputs and ", proto.functions_size(),
                         " functions, over the limits of ", kMaxRawInputs, " (kMaxRawInputs) and ",
                         kMaxPreprocessingFunctions, " (kMaxPreprocessingFunctions)");
  }
  Preprocessing preprocessing;
  for (int i = 0; i < proto.raw_inputs_size(); ++i) {
    Result<InputSignature> input = InputSignatureFromProto(proto.raw_inputs(i));
    if (!input.ok()) return DataLossError(where, ": raw input ", i, ": ", input.status().message());
    preprocessing.raw_inputs.push_back(*std::move(input));
  }
  for (int i = 0; i < proto.functions_size(); ++i) {
    spec::ElementFunction fn_spec;
    if (!fn_spec.ParseFromString(proto.functions(i))) {
      return DataLossError(where, ": function ", i, " is not a sluice.spec.ElementFunction message");
    }
    Status resolved = RewriteFilePaths(
        fn_spec, [&](const std::string& stored) { return ResolveInBundle(fs::path(bundle), stored); });
    if (!resolved.ok()) return DataLossError(where, ": function ", i, ": ", resolved.message());
    Result<ElementFunctionPtr> fn = ElementFunctionFromSpec(fn_spec);
    if (!fn.ok()) return DataLossError(where, ": function ", i, ": ", fn.status().message());
    preprocessing.functions.push_back(*std::move(fn));
  }
  return std::optional<Preprocessing>(std::move(preprocessing));
}

}  // namespace sluice
