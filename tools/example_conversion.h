// Conversions between tf.train.Example and text for `sluice tfrecord`:
// Examples as compact JSON, a feature-schema summary over many Examples, and
// Examples made from CSV rows or JSON-lines objects. Uses protobuf's
// generated classes: this is the tool's convenience path, not the fast
// parser (tfrecord/example_parser.h).
// Thread safety: plain functions and values.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "sluice/core/status.h"
#include "sluice/tfrecord/example.pb.h"

namespace sluice::cli {

// {"key": {"int64": [1, 2]}, "name": {"bytes": ["abc"]}, "empty": {}};
// keys sorted; bytes as JSON strings of one code point per byte: printable
// ASCII as itself (with \" and \\), any other byte as \u00XX ("\u00ff" is
// the byte 0xff; the text "\u00ff" prints as "\\u00ff").
std::string ExampleToJson(const tensorflow::Example& example);
// {"context": {...as above...}, "feature_lists": {"key": [{...}, ...]}}.
std::string SequenceExampleToJson(const tensorflow::SequenceExample& example);

// Which kinds and how many values each feature key has over a file; for
// SequenceExamples, context features as "context/<key>" and feature lists
// as "lists/<key>" with their step counts.
class FeatureSchemaSummary {
 public:
  void Add(const tensorflow::Example& example);
  void Add(const tensorflow::SequenceExample& example);
  // One line per key: "    key: int64 in 100/100 records, 1 value(s)".
  std::string ToString() const;

 private:
  struct KeyStats {
    std::map<std::string, int64_t> kinds;  // "int64" -> records
    int64_t records = 0;
    int64_t min_count = INT64_MAX;  // values (features) or steps (lists)
    int64_t max_count = 0;
    const char* unit = "value(s)";
  };
  void AddFeatures(const tensorflow::Features& features, const std::string& prefix);
  std::map<std::string, KeyStats> keys_;
  int64_t records_ = 0;
};

// Examples from CSV text (RFC 4180, tools/csv_parser.h): the first record
// names the features (each name once, none empty); each cell becomes a
// one-value feature; empty cells leave the feature out. A feature's kind is
// inferred once per column: int64 when every non-empty cell is a whole
// number that fits int64 (12, -3, 2.0, 1e3), float when every one is a
// decimal number or nan/inf/infinity (any case, signed), bytes otherwise;
// spaces around a number are allowed.
// A finite number beyond float32's range (1e39, 1e400) in a float column is
// an error, not an infinity. Errors name the line, and the column where
// there is one.
Result<std::vector<tensorflow::Example>> ExamplesFromCsv(std::string_view text);

// Examples from JSON lines, one object per non-blank line
// (tools/json_object_parser.h): strings (or lists of them) become bytes,
// numbers and booleans (0/1) numbers, their kind inferred per key over the
// whole input: int64 when every value is a whole number that fits int64
// (integers are read exactly, beyond 2^53 too), float otherwise. A key with
// strings on one line and numbers on another is an error, as is a number
// beyond float32's range in a float feature. A UTF-8 byte-order mark at the
// start is skipped. Errors start "<name>:<line>".
Result<std::vector<tensorflow::Example>> ExamplesFromJsonLines(std::string_view text, std::string_view name);

}  // namespace sluice::cli
