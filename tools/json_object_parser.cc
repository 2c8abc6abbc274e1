#include "sluice/tools/json_object_parser.h"

#include <charconv>
#include <set>

namespace sluice::cli {
namespace {

class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text) {}

  Result<std::vector<JsonField>> Object() {
    std::vector<JsonField> fields;
    std::set<std::string> keys;
    SkipSpace();
    if (!Consume('{')) return Error("expected a JSON object ('{')");
    SkipSpace();
    if (!Consume('}')) {
      while (true) {
        SkipSpace();
        const size_t key_at = at_;
        if (Peek() != '"') return Error("expected a key (a string)");
        JsonField field;
        SLUICE_ASSIGN_OR_RETURN(field.key, String());
        if (!keys.insert(field.key).second) {
          return InvalidArgumentError("column ", key_at + 1, ": key '", field.key, "' appears twice");
        }
        SkipSpace();
        if (!Consume(':')) return Error("expected ':' after a key");
        SkipSpace();
        if (Consume('[')) {
          SkipSpace();
          if (!Consume(']')) {
            while (true) {
              SkipSpace();
              SLUICE_ASSIGN_OR_RETURN(JsonScalar value, Scalar(field.key));
              field.values.push_back(std::move(value));
              SkipSpace();
              if (Consume(']')) break;
              if (!Consume(',')) return Error("expected ',' or ']' in a list");
            }
          }
        } else {
          SLUICE_ASSIGN_OR_RETURN(JsonScalar value, Scalar(field.key));
          field.values.push_back(std::move(value));
        }
        fields.push_back(std::move(field));
        SkipSpace();
        if (Consume('}')) break;
        if (!Consume(',')) return Error("expected ',' or '}' after a value");
      }
    }
    SkipSpace();
    if (at_ != text_.size()) return Error("unexpected text after the object");
    return fields;
  }

 private:
  char Peek() const { return at_ < text_.size() ? text_[at_] : '\0'; }
  bool Consume(char c) {
    if (Peek() != c || at_ >= text_.size()) return false;
    ++at_;
    return true;
  }
  void SkipSpace() {
    while (at_ < text_.size() &&
           (text_[at_] == ' ' || text_[at_] == '\t' || text_[at_] == '\r' || text_[at_] == '\n')) {
      ++at_;
    }
  }
  Status Error(std::string_view what) const {
    if (at_ >= text_.size()) return InvalidArgumentError("column ", at_ + 1, ": ", what, ", found the end of the line");
    return InvalidArgumentError("column ", at_ + 1, ": ", what, ", found '", text_[at_], "'");
  }

  Result<JsonScalar> Scalar(const std::string& key) {
    const char c = Peek();
    if (c == '"') {
      SLUICE_ASSIGN_OR_RETURN(std::string text, String());
      return JsonScalar{JsonScalar::Kind::kString, std::move(text)};
    }
    if (c == '-' || (c >= '0' && c <= '9')) {
      const size_t start = at_;
      while (at_ < text_.size() && std::string_view("+-.eE0123456789").find(text_[at_]) != std::string_view::npos) {
        ++at_;
      }
      return JsonScalar{JsonScalar::Kind::kNumber, std::string(text_.substr(start, at_ - start))};
    }
    for (std::string_view word : {"true", "false"}) {
      if (text_.substr(at_).starts_with(word)) {
        at_ += word.size();
        return JsonScalar{JsonScalar::Kind::kBool, std::string(word)};
      }
    }
    if (c == '{' || c == '[' || text_.substr(at_).starts_with("null")) {
      return InvalidArgumentError("column ", at_ + 1, ": feature '", key,
                                  "': values must be numbers, booleans or strings, or lists of them");
    }
    return Error("expected a value");
  }

  // A string at '"': its bytes, escapes decoded.
  Result<std::string> String() {
    ++at_;
    std::string out;
    while (true) {
      if (at_ >= text_.size()) return Error("unterminated string");
      const char c = text_[at_];
      if (c == '"') {
        ++at_;
        return out;
      }
      if (static_cast<unsigned char>(c) < 0x20) return Error("control character in a string (escape it)");
      if (c != '\\') {
        out += c;
        ++at_;
        continue;
      }
      ++at_;
      const char e = Peek();
      ++at_;
      switch (e) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case '/': out += '/'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': SLUICE_RETURN_IF_ERROR(CodePoint(out)); break;
        default: --at_; return Error("unknown escape in a string");
      }
    }
  }

  // After "\u": four hex digits, and a second \uXXXX for a surrogate pair;
  // appends the code point as UTF-8.
  Status CodePoint(std::string& out) {
    SLUICE_ASSIGN_OR_RETURN(uint32_t code, Hex4());
    if (code >= 0xDC00 && code <= 0xDFFF) return Error("unpaired surrogate in a \\u escape");
    if (code >= 0xD800 && code <= 0xDBFF) {
      if (!text_.substr(at_).starts_with("\\u")) return Error("unpaired surrogate in a \\u escape");
      at_ += 2;
      SLUICE_ASSIGN_OR_RETURN(const uint32_t low, Hex4());
      if (low < 0xDC00 || low > 0xDFFF) return Error("unpaired surrogate in a \\u escape");
      code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
    }
    if (code < 0x80) {
      out += static_cast<char>(code);
    } else if (code < 0x800) {
      out += static_cast<char>(0xC0 | (code >> 6));
      out += static_cast<char>(0x80 | (code & 0x3F));
    } else if (code < 0x10000) {
      out += static_cast<char>(0xE0 | (code >> 12));
      out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (code & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (code >> 18));
      out += static_cast<char>(0x80 | ((code >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (code & 0x3F));
    }
    return OkStatus();
  }

  Result<uint32_t> Hex4() {
    uint32_t value = 0;
    const std::string_view digits = text_.substr(at_, 4);
    const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value, 16);
    if (digits.size() != 4 || error != std::errc() || end != digits.data() + 4) {
      return Error("expected four hex digits after \\u");
    }
    at_ += 4;
    return value;
  }

  const std::string_view text_;
  size_t at_ = 0;
};

}  // namespace

Result<std::vector<JsonField>> ParseFlatJsonObject(std::string_view text) { return Parser(text).Object(); }

}  // namespace sluice::cli
