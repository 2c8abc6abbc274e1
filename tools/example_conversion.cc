#include "sluice/tools/example_conversion.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>
#include <optional>
#include <set>
#include <span>
#include <sstream>

#include "sluice/tools/csv_parser.h"
#include "sluice/tools/json_object_parser.h"

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

// A number as written in CSV or JSON. An integer that fits int64 is kept
// exactly (a double holds integers exactly only up to 2^53).
struct Number {
  std::string text;
  bool exact = false;    // `integer` holds it
  int64_t integer = 0;
  double value = 0;      // also for exact integers
  bool spelled = false;  // nan, inf or infinity: non-finite on purpose
};

// `text` as a decimal number: [+-]digits[.digits][(e|E)[+-]digits] (or
// [+-].digits...); with `words`, also nan, inf and infinity, signed, in any
// case. nullopt if it is not one.
std::optional<Number> ParseNumber(std::string_view text, bool words) {
  Number number{.text = std::string(text)};
  size_t i = text.starts_with('+') || text.starts_with('-') ? 1 : 0;
  std::string word(text.substr(i));
  std::transform(word.begin(), word.end(), word.begin(), [](unsigned char c) { return std::tolower(c); });
  if (words && (word == "nan" || word == "inf" || word == "infinity")) {
    const double magnitude = word == "nan" ? std::nan("") : HUGE_VAL;
    number.value = text.starts_with('-') ? -magnitude : magnitude;
    number.spelled = true;
    return number;
  }
  const auto digits = [&] {
    const size_t start = i;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
    return i - start;
  };
  size_t mantissa = digits();
  const bool integer = i == text.size();
  if (i < text.size() && text[i] == '.') {
    ++i;
    mantissa += digits();
  }
  if (mantissa == 0) return std::nullopt;
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
    if (digits() == 0) return std::nullopt;
  }
  if (i != text.size()) return std::nullopt;
  number.value = std::strtod(number.text.c_str(), nullptr);
  if (integer) {
    const std::string_view unsigned_text = text.starts_with('+') ? text.substr(1) : text;
    const auto [end, error] =
        std::from_chars(unsigned_text.data(), unsigned_text.data() + unsigned_text.size(), number.integer);
    number.exact = error == std::errc();
  }
  return number;
}

// `cell` without the spaces and tabs around it ("a, 1" has the cell " 1").
std::string_view WithoutSpaces(std::string_view cell) {
  const size_t first = cell.find_first_not_of(" \t");
  if (first == std::string_view::npos) return {};
  return cell.substr(first, cell.find_last_not_of(" \t") - first + 1);
}

// Whether `n` is a whole number int64 holds.
bool FitsInt64(const Number& n) {
  return n.exact || (std::floor(n.value) == n.value && n.value >= -0x1p63 && n.value < 0x1p63);
}

// Appends `n` to `feature` as an int64 or a float; a finite number beyond
// float32's range (1e39, or 1e400, which strtod makes infinite) is an error.
Status AddNumber(const Number& n, bool as_int64, tensorflow::Feature* feature) {
  if (as_int64) {
    feature->mutable_int64_list()->add_value(n.exact ? n.integer : static_cast<int64_t>(n.value));
    return OkStatus();
  }
  if (!n.spelled && !(std::fabs(n.value) <= std::numeric_limits<float>::max())) {
    return InvalidArgumentError("'", n.text, "' is out of float32's range (magnitude at most ",
                                std::numeric_limits<float>::max(), ")");
  }
  feature->mutable_float_list()->add_value(static_cast<float>(n.value));
  return OkStatus();
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
  SLUICE_ASSIGN_OR_RETURN(std::vector<CsvRecord> records, ParseCsv(text));
  if (records.empty()) return InvalidArgumentError("CSV input is empty: expected a header line");
  const CsvRecord& header = records[0];
  std::map<std::string, size_t> names;
  for (size_t column = 0; column < header.cells.size(); ++column) {
    const std::string& name = header.cells[column];
    if (name.empty()) return InvalidArgumentError("CSV line ", header.line, ", column ", column + 1, ": no name");
    if (const auto [it, added] = names.emplace(name, column); !added) {
      return InvalidArgumentError("CSV line ", header.line, ": columns ", it->second + 1, " and ", column + 1,
                                  " are both named '", name, "'");
    }
  }
  const std::span<const CsvRecord> rows = std::span(records).subspan(1);
  for (const CsvRecord& row : rows) {
    if (row.cells.size() != header.cells.size()) {
      return InvalidArgumentError("CSV line ", row.line, ": ", row.cells.size(), " cells, but the header has ",
                                  header.cells.size());
    }
  }
  std::vector<tensorflow::Example> examples(rows.size());
  for (size_t column = 0; column < header.cells.size(); ++column) {
    // Inferred once per column, so every record agrees on the kind.
    std::vector<std::optional<Number>> numbers(rows.size());
    bool numeric = true, as_int64 = true;
    for (size_t r = 0; r < rows.size() && numeric; ++r) {
      const std::string& cell = rows[r].cells[column];
      if (cell.empty()) continue;
      numbers[r] = ParseNumber(WithoutSpaces(cell), /*words=*/true);
      numeric = numbers[r].has_value();
      as_int64 = as_int64 && numeric && FitsInt64(*numbers[r]);
    }
    for (size_t r = 0; r < rows.size(); ++r) {
      const std::string& cell = rows[r].cells[column];
      if (cell.empty()) continue;
      auto& feature = (*examples[r].mutable_features()->mutable_feature())[header.cells[column]];
      if (!numeric) {
        feature.mutable_bytes_list()->add_value(cell);
        continue;
      }
      const Status added = AddNumber(*numbers[r], as_int64, &feature);
      if (!added.ok()) {
        return added.WithContext(StrCat("CSV line ", rows[r].line, ", column ", column + 1, " ('",
                                        header.cells[column], "')"));
      }
    }
  }
  return examples;
}

Result<std::vector<tensorflow::Example>> ExamplesFromJsonLines(std::string_view text, std::string_view name) {
  // A key's kind over every line: bytes for strings, else int64 when every
  // number fits int64, else float; strings and numbers do not mix.
  struct KeyKind {
    int64_t string_line = 0, number_line = 0;  // the first line with each
    bool as_int64 = true;
  };
  struct Line {
    int64_t number;
    std::vector<JsonField> fields;
    std::vector<std::vector<Number>> numbers;  // per field
  };
  std::map<std::string, KeyKind> keys;
  std::vector<Line> lines;
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);  // a UTF-8 byte-order mark
  for (size_t start = 0, number = 1; start < text.size(); ++number) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line_text = text.substr(start, end - start);
    start = end + 1;
    if (line_text.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    const std::string where = StrCat(name, ":", number);
    Result<std::vector<JsonField>> fields = ParseFlatJsonObject(line_text);
    if (!fields.ok()) return fields.status().WithContext(where);
    Line& line = lines.emplace_back(Line{static_cast<int64_t>(number), std::move(*fields), {}});
    for (const JsonField& field : line.fields) {
      KeyKind& key = keys[field.key];
      std::vector<Number>& numbers = line.numbers.emplace_back();
      for (const JsonScalar& value : field.values) {
        if (value.kind == JsonScalar::Kind::kString) {
          if (key.string_line == 0) key.string_line = line.number;
          continue;
        }
        if (key.number_line == 0) key.number_line = line.number;
        const bool truth = value.text == "true";
        std::optional<Number> n =
            value.kind == JsonScalar::Kind::kBool
                ? Number{.text = value.text, .exact = true, .integer = truth, .value = truth ? 1.0 : 0.0}
                : ParseNumber(value.text, /*words=*/false);
        if (!n) return InvalidArgumentError(where, ": feature '", field.key, "': '", value.text, "' is not a number");
        key.as_int64 = key.as_int64 && FitsInt64(*n);
        numbers.push_back(std::move(*n));
      }
      if (key.string_line != 0 && key.number_line != 0) {
        return InvalidArgumentError(where, ": feature '", field.key, "' has strings (line ", key.string_line,
                                    ") and numbers (line ", key.number_line, "); a feature holds one kind");
      }
    }
  }
  std::vector<tensorflow::Example> examples(lines.size());
  for (size_t l = 0; l < lines.size(); ++l) {
    const Line& line = lines[l];
    for (size_t f = 0; f < line.fields.size(); ++f) {
      const JsonField& field = line.fields[f];
      const KeyKind& key = keys[field.key];
      auto& feature = (*examples[l].mutable_features()->mutable_feature())[field.key];
      if (key.string_line != 0) {
        auto* list = feature.mutable_bytes_list();
        for (const JsonScalar& value : field.values) list->add_value(value.text);
      } else if (key.number_line != 0) {  // else only empty lists: no kind
        if (key.as_int64) feature.mutable_int64_list();
        else feature.mutable_float_list();
        for (const Number& n : line.numbers[f]) {
          const Status added = AddNumber(n, key.as_int64, &feature);
          if (!added.ok()) return added.WithContext(StrCat(name, ":", line.number, ": feature '", field.key, "'"));
        }
      }
    }
  }
  return examples;
}

}  // namespace sluice::cli
