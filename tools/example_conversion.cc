#include "tools/example_conversion.h"

#include <google/protobuf/struct.pb.h>
#include <google/protobuf/util/json_util.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <set>
#include <sstream>

namespace sluice::cli {
namespace {

// Each byte is one code point: printable ASCII as itself (" and \ escaped),
// any other byte as \u00XX, so the text and the bytes it could be mistaken
// for never print alike, and a JSON reader gets back code points 0-255
// that are the bytes.
std::string JsonString(std::string_view bytes) {
  std::string out = "\"";
  for (unsigned char c : bytes) {
    if (c >= 0x20 && c < 0x7f) {
      if (c == '"' || c == '\\') out += '\\';
      out += static_cast<char>(c);
      continue;
    }
    char escape[7];
    std::snprintf(escape, sizeof(escape), "\\u%04x", c);
    out += escape;
  }
  return out + "\"";
}

std::string_view KindName(const tensorflow::Feature& feature) {
  switch (feature.kind_case()) {
    case tensorflow::Feature::kBytesList: return "bytes";
    case tensorflow::Feature::kFloatList: return "float";
    case tensorflow::Feature::kInt64List: return "int64";
    default: return "none";
  }
}

int64_t ValueCount(const tensorflow::Feature& feature) {
  switch (feature.kind_case()) {
    case tensorflow::Feature::kBytesList: return feature.bytes_list().value_size();
    case tensorflow::Feature::kFloatList: return feature.float_list().value_size();
    case tensorflow::Feature::kInt64List: return feature.int64_list().value_size();
    default: return 0;
  }
}

template <typename Values, typename Format>
std::string JoinValues(const Values& values, Format format) {
  std::string out;
  for (const auto& v : values) out += (out.empty() ? "" : ", ") + format(v);
  return out;
}

std::string FloatText(float v) {
  if (!std::isfinite(v)) return std::isnan(v) ? "\"nan\"" : (v > 0 ? "\"inf\"" : "\"-inf\"");
  char text[32];
  std::snprintf(text, sizeof(text), "%.9g", v);
  return text;
}

// Sets `feature` from numbers: int64 when all are integers, float otherwise.
void SetNumbers(const std::vector<double>& numbers, tensorflow::Feature* feature) {
  const bool integral = std::all_of(numbers.begin(), numbers.end(), [](double d) {
    return std::floor(d) == d && std::fabs(d) < 9.2e18;
  });
  for (double d : numbers) {
    if (integral) feature->mutable_int64_list()->add_value(static_cast<int64_t>(d));
    else feature->mutable_float_list()->add_value(static_cast<float>(d));
  }
}

// Splits one CSV line into cells; false on an unterminated quote.
bool SplitCsvLine(std::string_view line, std::vector<std::string>* cells) {
  cells->assign(1, "");
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        cells->back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        cells->back() += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      cells->emplace_back();
    } else if (c != '\r') {
      cells->back() += c;
    }
  }
  return !quoted;
}

// An integral cell's value: exact when written as an integer ("12"), else
// from its double ("1e3", "2.0").
int64_t IntegerValue(const std::string& cell, double number) {
  int64_t value = 0;
  const auto [end, error] = std::from_chars(cell.data(), cell.data() + cell.size(), value);
  if (error == std::errc() && end == cell.data() + cell.size()) return value;
  return static_cast<int64_t>(number);
}

bool ParseNumber(const std::string& cell, double* value) {
  if (cell.empty()) return false;
  char* end = nullptr;
  *value = std::strtod(cell.c_str(), &end);
  return end == cell.c_str() + cell.size();
}

}  // namespace

namespace {

std::string FeatureToJson(const tensorflow::Feature& feature) {
  switch (feature.kind_case()) {
    case tensorflow::Feature::kBytesList:
      return "{\"bytes\": [" +
             JoinValues(feature.bytes_list().value(), [](const std::string& v) { return JsonString(v); }) + "]}";
    case tensorflow::Feature::kFloatList:
      return "{\"float\": [" + JoinValues(feature.float_list().value(), FloatText) + "]}";
    case tensorflow::Feature::kInt64List:
      return "{\"int64\": [" +
             JoinValues(feature.int64_list().value(), [](int64_t v) { return std::to_string(v); }) + "]}";
    default: return "{}";
  }
}

// A protobuf map as a JSON object with sorted keys.
template <typename Map, typename ValueToJson>
std::string SortedObject(const Map& map, ValueToJson value_to_json) {
  std::map<std::string, const typename Map::mapped_type*> sorted;
  for (const auto& [key, value] : map) sorted[key] = &value;
  std::string out = "{";
  for (const auto& [key, value] : sorted) {
    if (out.size() > 1) out += ", ";
    out += JsonString(key) + ": " + value_to_json(*value);
  }
  return out + "}";
}

std::string FeaturesToJson(const tensorflow::Features& features) {
  return SortedObject(features.feature(), FeatureToJson);
}

}  // namespace

std::string ExampleToJson(const tensorflow::Example& example) { return FeaturesToJson(example.features()); }

std::string SequenceExampleToJson(const tensorflow::SequenceExample& example) {
  return "{\"context\": " + FeaturesToJson(example.context()) + ", \"feature_lists\": " +
         SortedObject(example.feature_lists().feature_list(),
                      [](const tensorflow::FeatureList& list) {
                        std::string steps = "[";  // appended: GCC 12 warns on "[" + s + "]"
                        steps += JoinValues(list.feature(), FeatureToJson);
                        return steps + "]";
                      }) +
         "}";
}

void FeatureSchemaSummary::AddFeatures(const tensorflow::Features& features, const std::string& prefix) {
  for (const auto& [key, feature] : features.feature()) {
    KeyStats& stats = keys_[prefix + key];
    ++stats.records;
    ++stats.kinds[std::string(KindName(feature))];
    stats.min_count = std::min(stats.min_count, ValueCount(feature));
    stats.max_count = std::max(stats.max_count, ValueCount(feature));
  }
}

void FeatureSchemaSummary::Add(const tensorflow::Example& example) {
  ++records_;
  AddFeatures(example.features(), "");
}

void FeatureSchemaSummary::Add(const tensorflow::SequenceExample& example) {
  ++records_;
  AddFeatures(example.context(), "context/");
  for (const auto& [key, list] : example.feature_lists().feature_list()) {
    KeyStats& stats = keys_["lists/" + key];
    stats.unit = "step(s)";
    ++stats.records;
    std::set<std::string_view> kinds;
    for (const tensorflow::Feature& step : list.feature()) kinds.insert(KindName(step));
    for (std::string_view kind : kinds) ++stats.kinds[std::string(kind)];
    stats.min_count = std::min<int64_t>(stats.min_count, list.feature_size());
    stats.max_count = std::max<int64_t>(stats.max_count, list.feature_size());
  }
}

std::string FeatureSchemaSummary::ToString() const {
  std::ostringstream out;
  for (const auto& [key, stats] : keys_) {
    std::string kinds;
    for (const auto& [kind, count] : stats.kinds) kinds += (kinds.empty() ? "" : "|") + kind;
    out << "    " << key << ": " << kinds << " in " << stats.records << "/" << records_ << " records, ";
    if (stats.min_count == stats.max_count) out << stats.min_count;
    else out << stats.min_count << "-" << stats.max_count;
    out << " " << stats.unit << "\n";
  }
  return out.str();
}

Result<std::vector<tensorflow::Example>> ExamplesFromCsv(std::string_view text) {
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> header;
  size_t line_number = 0;
  for (size_t start = 0; start < text.size();) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(start, end - start);
    start = end + 1;
    ++line_number;
    if (line.empty() || line == "\r") continue;
    std::vector<std::string> cells;
    if (!SplitCsvLine(line, &cells)) return InvalidArgumentError("CSV line ", line_number, ": unterminated quote");
    if (header.empty()) {
      header = std::move(cells);
      continue;
    }
    if (cells.size() != header.size()) {
      return InvalidArgumentError("CSV line ", line_number, ": ", cells.size(), " cells, but the header has ",
                                  header.size());
    }
    rows.push_back(std::move(cells));
  }
  if (header.empty()) return InvalidArgumentError("CSV input is empty: expected a header line");
  std::vector<tensorflow::Example> examples(rows.size());
  for (size_t column = 0; column < header.size(); ++column) {
    std::vector<double> numbers(rows.size());
    bool numeric = true;
    for (size_t r = 0; r < rows.size(); ++r) {
      const std::string& cell = rows[r][column];
      numeric = numeric && (cell.empty() || ParseNumber(cell, &numbers[r]));
    }
    // Inferred once per column, so every record agrees on the kind.
    bool integral = numeric;
    for (size_t r = 0; r < rows.size() && integral; ++r) {
      integral = rows[r][column].empty() || std::floor(numbers[r]) == numbers[r];
    }
    for (size_t r = 0; r < rows.size(); ++r) {
      const std::string& cell = rows[r][column];
      if (cell.empty()) continue;
      auto& feature = (*examples[r].mutable_features()->mutable_feature())[header[column]];
      if (!numeric) feature.mutable_bytes_list()->add_value(cell);
      else if (integral) feature.mutable_int64_list()->add_value(IntegerValue(cell, numbers[r]));
      else feature.mutable_float_list()->add_value(static_cast<float>(numbers[r]));
    }
  }
  return examples;
}

Result<tensorflow::Example> ExampleFromJson(std::string_view json_object) {
  google::protobuf::Struct object;
  const auto status = google::protobuf::util::JsonStringToMessage(std::string(json_object), &object);
  if (!status.ok()) return InvalidArgumentError("not a JSON object: ", status.ToString());
  tensorflow::Example example;
  for (const auto& [key, value] : object.fields()) {
    auto& feature = (*example.mutable_features()->mutable_feature())[key];
    std::vector<const google::protobuf::Value*> items;
    if (value.has_list_value()) {
      for (const auto& item : value.list_value().values()) items.push_back(&item);
    } else {
      items.push_back(&value);
    }
    std::vector<double> numbers;
    for (const auto* item : items) {
      switch (item->kind_case()) {
        case google::protobuf::Value::kNumberValue: numbers.push_back(item->number_value()); break;
        case google::protobuf::Value::kBoolValue: numbers.push_back(item->bool_value() ? 1 : 0); break;
        case google::protobuf::Value::kStringValue:
          feature.mutable_bytes_list()->add_value(item->string_value());
          break;
        default:
          return InvalidArgumentError("feature '", key, "': values must be numbers, booleans or strings");
      }
    }
    if (!numbers.empty() && feature.has_bytes_list()) {
      return InvalidArgumentError("feature '", key, "' mixes strings and numbers");
    }
    if (!numbers.empty()) SetNumbers(numbers, &feature);
  }
  return example;
}

}  // namespace sluice::cli
