// Protobuf text files that people write (pipeline specs, training jobs):
// read whole up to a size limit, so that a file without end (/dev/zero)
// stops at the limit, and parsed with a nesting limit, errors naming the
// file, line and column.
//
//   SLUICE_ASSIGN_OR_RETURN(std::string text, ReadTextFile(path, {"training job", kMaxJobBytes, "kMaxJobBytes"}));
//   SLUICE_RETURN_IF_ERROR(ParseTextProto(text, "training job", path + ":", kMaxDepth, &job));
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "sluice/core/status.h"

namespace google::protobuf {
class Message;
}

namespace sluice {

struct TextFileKind {
  std::string_view what;        // "pipeline spec": errors name "pipeline spec file 'x'"
  size_t max_bytes = 0;
  std::string_view limit_name;  // the constant's name, for the size error
};

// The file's bytes. NotFound when it does not exist; InvalidArgument when it
// is a directory, unreadable (naming the byte offset) or over the limit.
Result<std::string> ReadTextFile(const std::string& path, const TextFileKind& kind);

// Parses `text` into `out`, messages nesting at most `max_depth` deep.
// InvalidArgument "cannot parse <what>: <where><line>:<column>: <error>".
Status ParseTextProto(std::string_view text, std::string_view what, std::string_view where, int max_depth,
                      google::protobuf::Message* out);

}  // namespace sluice
