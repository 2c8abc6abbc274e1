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

#include "core/status.h"
#include "tfrecord/example.pb.h"

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

// Examples from CSV text: the first line names the features; each cell
// becomes a one-value feature whose kind is inferred per column (int64 when
// every non-empty cell is an integer, float when every one is a number,
// bytes otherwise); empty cells leave the feature out. Quoted cells ("a,b",
// "" for a quote) are understood. Errors name the line.
Result<std::vector<tensorflow::Example>> ExamplesFromCsv(std::string_view text);

// One Example from a JSON object: numbers (or arrays of them) become int64
// when all are integers, float otherwise; strings become bytes; booleans
// int64 0/1.
Result<tensorflow::Example> ExampleFromJson(std::string_view json_object);

}  // namespace sluice::cli
