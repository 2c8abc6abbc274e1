#include "sluice/dataset/expression_parse.h"

#include <array>
#include <charconv>
#include <cstdlib>
#include <limits>
#include <string>

#include "sluice/core/dtype.h"
#include "sluice/core/shape.h"
#include "sluice/dataset/expression_ops.h"
#include "sluice/dataset/pipeline_spec.pb.h"

namespace sluice {
namespace {

constexpr std::array<std::string_view, 7> kKeywords = {"and", "or", "not", "true", "false", "inf", "nan"};

bool IsIdentifierStart(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsIdentifierChar(char c) { return IsIdentifierStart(c) || IsDigit(c); }

spec::Expression Call(ExpressionOp op, std::vector<spec::Expression> args) {
  spec::Expression e;
  spec::Expression::Call* call = e.mutable_call();
  call->set_op(op);
  for (spec::Expression& arg : args) *call->add_args() = std::move(arg);
  return e;
}

// A literal's values before it becomes a TensorProto.
struct Literal {
  std::vector<int64_t> shape;
  std::vector<double> floats;
  std::vector<int64_t> ints;
  std::vector<std::string> strings;
  bool any_float = false;

  size_t size() const { return strings.empty() ? (any_float ? floats.size() : ints.size()) : strings.size(); }
};

class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text) {}

  Result<spec::Expression> Parse() {
    SLUICE_ASSIGN_OR_RETURN(spec::Expression e, ParseOr());
    SkipSpace();
    if (pos_ != text_.size()) return Error("expected an operator or the end of the text");
    return e;
  }

 private:
  Status Error(std::string_view expected) const {
    const std::string found = pos_ < text_.size() ? StrCat("'", text_.substr(pos_, 1), "'") : "the end";
    return InvalidArgumentError("expression \"", text_, "\": column ", pos_ + 1, ": ", expected, ", found ", found);
  }

  void SkipSpace() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t' || text_[pos_] == '\n')) ++pos_;
  }
  // Consumes `symbol` when it comes next (a word only when a whole word).
  bool Accept(std::string_view symbol) {
    SkipSpace();
    if (text_.substr(pos_, symbol.size()) != symbol) return false;
    const size_t after = pos_ + symbol.size();
    if (IsIdentifierChar(symbol.back()) && after < text_.size() && IsIdentifierChar(text_[after])) return false;
    // "<" is not the start of "<=", "!" not of "!=".
    if ((symbol == "<" || symbol == ">" || symbol == "!" || symbol == "=") && after < text_.size() && text_[after] == '=') {
      return false;
    }
    pos_ = after;
    return true;
  }
  Status Expect(std::string_view symbol) {
    if (Accept(symbol)) return OkStatus();
    return Error(StrCat("expected '", symbol, "'"));
  }

  // Guards the recursion against deeply nested input.
  struct Depth {
    explicit Depth(int* depth) : depth_(depth) { ++*depth_; }
    ~Depth() { --*depth_; }
    int* depth_;
  };
  Status CheckDepth() const {
    if (depth_ <= kMaxExpressionDepth) return OkStatus();
    return Error(StrCat("expected at most ", kMaxExpressionDepth, " levels of nesting"));
  }

  using Next = Result<spec::Expression> (Parser::*)();
  // left (op right)*, for the left-associative levels.
  Result<spec::Expression> ParseLeftAssociative(Next next, std::initializer_list<std::string_view> symbols) {
    SLUICE_ASSIGN_OR_RETURN(spec::Expression left, (this->*next)());
    while (true) {
      const ExpressionOpInfo* op = nullptr;
      for (std::string_view symbol : symbols) {
        if (Accept(symbol)) {
          op = FindInfixOp(symbol == "&&" ? "and" : symbol == "||" ? "or" : symbol);
          break;
        }
      }
      if (op == nullptr) return left;
      SLUICE_ASSIGN_OR_RETURN(spec::Expression right, (this->*next)());
      std::vector<spec::Expression> args;
      args.push_back(std::move(left));
      args.push_back(std::move(right));
      left = Call(op->op, std::move(args));
    }
  }

  Result<spec::Expression> ParseOr() { return ParseLeftAssociative(&Parser::ParseAnd, {"or", "||"}); }
  Result<spec::Expression> ParseAnd() { return ParseLeftAssociative(&Parser::ParseNot, {"and", "&&"}); }
  Result<spec::Expression> ParseNot() {
    Depth depth(&depth_);
    SLUICE_RETURN_IF_ERROR(CheckDepth());
    if (Accept("not") || Accept("!")) {
      SLUICE_ASSIGN_OR_RETURN(spec::Expression operand, ParseNot());
      std::vector<spec::Expression> args;
      args.push_back(std::move(operand));
      return Call(spec::Expression::NOT, std::move(args));
    }
    return ParseComparison();
  }
  // The comparison operator that comes next, consumed; nullptr when none.
  const ExpressionOpInfo* AcceptComparison() {
    static constexpr std::array<std::string_view, 6> kSymbols = {"==", "!=", "<=", ">=", "<", ">"};
    for (std::string_view symbol : kSymbols) {
      if (Accept(symbol)) return FindInfixOp(symbol);
    }
    return nullptr;
  }
  Result<spec::Expression> ParseComparison() {
    SLUICE_ASSIGN_OR_RETURN(spec::Expression left, ParseAdditive());
    const ExpressionOpInfo* op = AcceptComparison();
    if (op == nullptr) return left;
    SLUICE_ASSIGN_OR_RETURN(spec::Expression right, ParseAdditive());
    SkipSpace();
    const size_t next = pos_;
    if (AcceptComparison() != nullptr) {
      pos_ = next;
      return Error("expected no second comparison (comparisons do not chain: write a < b and b < c)");
    }
    std::vector<spec::Expression> args;
    args.push_back(std::move(left));
    args.push_back(std::move(right));
    return Call(op->op, std::move(args));
  }
  Result<spec::Expression> ParseAdditive() { return ParseLeftAssociative(&Parser::ParseMultiplicative, {"+", "-"}); }
  Result<spec::Expression> ParseMultiplicative() { return ParseLeftAssociative(&Parser::ParseUnary, {"*", "/", "%"}); }

  Result<spec::Expression> ParseUnary() {
    Depth depth(&depth_);
    SLUICE_RETURN_IF_ERROR(CheckDepth());
    if (!Accept("-")) return ParsePrimary();
    SkipSpace();
    // A minus before a number is part of the literal.
    if (pos_ < text_.size() && (IsDigit(text_[pos_]) || text_[pos_] == '.' || Peek("inf") || Peek("nan"))) {
      SLUICE_ASSIGN_OR_RETURN(Literal literal, ParseNumber(/*negative=*/true));
      return ToConstant(literal, "");
    }
    SLUICE_ASSIGN_OR_RETURN(spec::Expression operand, ParseUnary());
    std::vector<spec::Expression> args;
    args.push_back(std::move(operand));
    return Call(spec::Expression::NEG, std::move(args));
  }

  bool Peek(std::string_view word) const {
    const size_t after = pos_ + word.size();
    return text_.substr(pos_, word.size()) == word && (after >= text_.size() || !IsIdentifierChar(text_[after]));
  }

  Result<Literal> ParseNumber(bool negative) {
    SkipSpace();
    Literal literal;
    const double sign = negative ? -1.0 : 1.0;
    if (Peek("inf") || Peek("nan")) {
      literal.any_float = true;
      literal.floats.push_back(sign * (Peek("inf") ? std::numeric_limits<double>::infinity()
                                                   : std::numeric_limits<double>::quiet_NaN()));
      pos_ += 3;
      return literal;
    }
    const size_t start = pos_;
    while (pos_ < text_.size() && (IsDigit(text_[pos_]) || text_[pos_] == '.' || text_[pos_] == 'e' ||
                                   text_[pos_] == 'E' ||
                                   ((text_[pos_] == '+' || text_[pos_] == '-') && pos_ > start &&
                                    (text_[pos_ - 1] == 'e' || text_[pos_ - 1] == 'E')))) {
      ++pos_;
    }
    const std::string digits = StrCat(negative ? "-" : "", text_.substr(start, pos_ - start));
    if (pos_ == start) return Error("expected a number");
    if (digits.find_first_of(".eE") == std::string::npos) {
      int64_t value = 0;
      const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
      if (error != std::errc() || end != digits.data() + digits.size()) {
        pos_ = start;
        return Error("expected an integer within int64");
      }
      literal.ints.push_back(value);
      literal.floats.push_back(static_cast<double>(value));
      return literal;
    }
    char* end = nullptr;
    const double value = std::strtod(digits.c_str(), &end);
    if (end != digits.c_str() + digits.size()) {
      pos_ = start;
      return Error("expected a number");
    }
    literal.any_float = true;
    literal.floats.push_back(value);
    return literal;
  }

  Result<std::string> ParseQuoted(char quote) {
    std::string out;
    ++pos_;  // the opening quote
    while (pos_ < text_.size() && text_[pos_] != quote) {
      char c = text_[pos_++];
      if (c == '\\' && pos_ < text_.size()) {
        c = text_[pos_++];
        if (c == 'n') {
          c = '\n';
        } else if (c == 'x' && quote == '"' && pos_ + 2 <= text_.size()) {
          unsigned value = 0;
          const auto [end, error] = std::from_chars(text_.data() + pos_, text_.data() + pos_ + 2, value, 16);
          if (error != std::errc() || end != text_.data() + pos_ + 2) return Error("expected two hex digits after \\x");
          pos_ += 2;
          c = static_cast<char>(value);
        }
      }
      out += c;
    }
    if (pos_ >= text_.size()) return Error(StrCat("expected a closing ", std::string(1, quote)));
    ++pos_;
    return out;
  }

  // A number, a string or a rectangular nested list of one of them.
  Result<Literal> ParseLiteral(int depth) {
    SkipSpace();
    if (depth > kMaxRank) return Error(StrCat("expected a list literal of rank at most ", kMaxRank));
    if (pos_ < text_.size() && text_[pos_] == '"') {
      Literal literal;
      SLUICE_ASSIGN_OR_RETURN(std::string s, ParseQuoted('"'));
      literal.strings.push_back(std::move(s));
      return literal;
    }
    if (!Accept("[")) return ParseNumber(Accept("-"));
    Literal list;
    int64_t count = 0;
    std::vector<int64_t> row_shape;
    do {
      SkipSpace();
      const size_t item_start = pos_;
      SLUICE_ASSIGN_OR_RETURN(Literal item, ParseLiteral(depth + 1));
      if (count > 0 && (item.shape != row_shape || item.strings.empty() != list.strings.empty())) {
        pos_ = item_start;
        return Error("expected list items of one kind and shape");
      }
      row_shape = item.shape;
      list.any_float |= item.any_float;
      list.floats.insert(list.floats.end(), item.floats.begin(), item.floats.end());
      list.ints.insert(list.ints.end(), item.ints.begin(), item.ints.end());
      list.strings.insert(list.strings.end(), item.strings.begin(), item.strings.end());
      ++count;
      if (list.size() > static_cast<size_t>(kMaxLiteralValues)) {
        return Error(StrCat("expected a list literal of at most ", kMaxLiteralValues, " values"));
      }
    } while (Accept(","));
    SLUICE_RETURN_IF_ERROR(Expect("]"));
    list.shape.push_back(count);
    list.shape.insert(list.shape.end(), row_shape.begin(), row_shape.end());
    return list;
  }

  // The constant for `literal`; `dtype` empty for an untyped one.
  Result<spec::Expression> ToConstant(const Literal& literal, std::string_view dtype) {
    spec::Expression e;
    spec::TensorProto* t = e.mutable_constant();
    for (int64_t d : literal.shape) t->add_shape(d);
    if (!literal.strings.empty()) {
      if (!dtype.empty() && dtype != "string") return Error(StrCat("expected numbers for ", dtype, "(...)"));
      t->set_dtype("string");
      for (const std::string& s : literal.strings) t->add_string_values(s);
      return e;
    }
    t->set_dtype(std::string(dtype));
    const bool floating = dtype.empty() ? literal.any_float : IsFloating(*ParseDType(dtype));
    if (floating) {
      for (double v : literal.floats) t->add_float_values(v);
    } else if (literal.any_float) {
      return Error(StrCat("expected integer values for ", dtype, "(...)"));
    } else {
      for (int64_t v : literal.ints) t->add_int_values(v);
    }
    return e;
  }

  Result<int64_t> ParseInteger() {
    SkipSpace();
    const size_t start = pos_;
    SLUICE_ASSIGN_OR_RETURN(Literal literal, ParseNumber(Accept("-")));
    if (literal.any_float) {
      pos_ = start;
      return Error("expected an integer");
    }
    return literal.ints.front();
  }

  Result<std::string> ParseIdentifier() {
    SkipSpace();
    const size_t start = pos_;
    while (pos_ < text_.size() && IsIdentifierChar(text_[pos_])) ++pos_;
    if (pos_ == start || !IsIdentifierStart(text_[start])) {
      pos_ = start;
      return Error("expected a name");
    }
    return std::string(text_.substr(start, pos_ - start));
  }

  Result<spec::Expression> ParseCall(std::string_view name, size_t name_start) {
    // A dtype name: a typed constant.
    if (Result<DType> dtype = ParseDType(name); dtype.ok()) {
      SLUICE_ASSIGN_OR_RETURN(Literal literal, ParseLiteral(0));
      SLUICE_ASSIGN_OR_RETURN(spec::Expression constant, ToConstant(literal, name));
      SLUICE_RETURN_IF_ERROR(Expect(")"));
      return constant;
    }
    const ExpressionOpInfo* info = FindExpressionFunction(name);
    if (info == nullptr) {
      pos_ = name_start;
      return Error(StrCat("expected a known function (\"", name, "\" is none)"));
    }
    spec::Expression e;
    spec::Expression::Call* call = e.mutable_call();
    call->set_op(info->op);
    if (info->op == spec::Expression::CONCAT) {
      SLUICE_ASSIGN_OR_RETURN(const int64_t axis, ParseInteger());
      call->set_axis(axis);
      SLUICE_RETURN_IF_ERROR(Expect(","));
    }
    SkipSpace();
    if (pos_ < text_.size() && text_[pos_] != ')') {
      do {
        SLUICE_ASSIGN_OR_RETURN(*call->add_args(), ParseOr());
        if (info->op == spec::Expression::CAST || info->op == spec::Expression::SLICE) break;
      } while (Accept(","));
    }
    if (info->op == spec::Expression::CAST) {
      SLUICE_RETURN_IF_ERROR(Expect(","));
      SkipSpace();
      const size_t dtype_start = pos_;
      SLUICE_ASSIGN_OR_RETURN(const std::string dtype, ParseIdentifier());
      if (!ParseDType(dtype).ok()) {
        pos_ = dtype_start;
        return Error("expected a dtype (float32, int64, ...)");
      }
      call->set_dtype(dtype);
    } else if (info->op == spec::Expression::SLICE) {
      SLUICE_RETURN_IF_ERROR(Expect(","));
      SLUICE_ASSIGN_OR_RETURN(const int64_t axis, ParseInteger());
      SLUICE_RETURN_IF_ERROR(Expect(","));
      SLUICE_ASSIGN_OR_RETURN(const int64_t begin, ParseInteger());
      call->set_axis(axis);
      call->set_begin(begin);
      if (Accept(",")) {
        SLUICE_ASSIGN_OR_RETURN(const int64_t end, ParseInteger());
        call->set_end(end);
      }
    }
    const int n = call->args_size();
    if (n < info->min_args || (info->max_args >= 0 && n > info->max_args)) {
      return Error(StrCat("expected ", info->min_args == info->max_args ? "" : "at least ", info->min_args,
                          " argument", info->min_args == 1 ? "" : "s", " for ", name));
    }
    SLUICE_RETURN_IF_ERROR(Expect(")"));
    return e;
  }

  Result<spec::Expression> ParsePrimary() {
    SkipSpace();
    if (pos_ >= text_.size()) return Error("expected an operand");
    const char c = text_[pos_];
    if (Accept("(")) {
      SLUICE_ASSIGN_OR_RETURN(spec::Expression inner, ParseOr());
      SLUICE_RETURN_IF_ERROR(Expect(")"));
      return inner;
    }
    if (c == '`') {
      spec::Expression e;
      SLUICE_ASSIGN_OR_RETURN(*e.mutable_component(), ParseQuoted('`'));
      return e;
    }
    if (c == '"' || c == '[' || IsDigit(c) || c == '.' || Peek("inf") || Peek("nan")) {
      SLUICE_ASSIGN_OR_RETURN(Literal literal, ParseLiteral(0));
      return ToConstant(literal, "");
    }
    if (Peek("true") || Peek("false")) {
      spec::Expression e;
      e.mutable_constant()->set_dtype("bool");
      e.mutable_constant()->add_int_values(Peek("true") ? 1 : 0);
      pos_ += Peek("true") ? 4 : 5;
      return e;
    }
    if (!IsIdentifierStart(c)) return Error("expected an operand");
    const size_t start = pos_;
    SLUICE_ASSIGN_OR_RETURN(const std::string name, ParseIdentifier());
    if (!IsPlainIdentifier(name)) {
      pos_ = start;
      return Error("expected an operand");
    }
    if (Accept("(")) return ParseCall(name, start);
    spec::Expression e;
    e.set_component(name);
    return e;
  }

  const std::string_view text_;
  size_t pos_ = 0;
  int depth_ = 0;
};

}  // namespace

bool IsPlainIdentifier(std::string_view name) {
  if (name.empty() || !IsIdentifierStart(name.front())) return false;
  for (const char c : name) {
    if (!IsIdentifierChar(c)) return false;
  }
  for (std::string_view keyword : kKeywords) {
    if (name == keyword) return false;
  }
  return true;
}

Result<spec::Expression> ParseExpression(std::string_view text) { return Parser(text).Parse(); }

}  // namespace sluice
