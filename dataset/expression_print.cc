#include "sluice/dataset/expression_print.h"

#include <cstdio>
#include <cstdlib>
#include <limits>

#include "sluice/dataset/expression_ops.h"
#include "sluice/dataset/expression_parse.h"

namespace sluice {
namespace {

std::string PrintDouble(double value) {
  if (value != value) return "nan";
  if (value == std::numeric_limits<double>::infinity()) return "inf";
  if (value == -std::numeric_limits<double>::infinity()) return "-inf";
  char buffer[32];
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(buffer, sizeof(buffer), "%.*g", precision, value);
    if (std::strtod(buffer, nullptr) == value) break;
  }
  std::string out = buffer;
  if (out.find_first_of(".e") == std::string::npos) out += ".0";
  return out;
}

std::string PrintString(std::string_view bytes) {
  std::string out = "\"";
  for (const char c : bytes) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f) {
      char hex[8];
      std::snprintf(hex, sizeof(hex), "\\x%02x", static_cast<unsigned char>(c));
      out += hex;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

// Value `i` of a constant, as a literal.
std::string PrintValue(const spec::TensorProto& t, int i) {
  if (t.string_values_size() > 0) return PrintString(t.string_values(i));
  if (t.float_values_size() > 0) return PrintDouble(t.float_values(i));
  if (t.dtype() == "bool" && t.shape_size() == 0) return t.int_values(i) != 0 ? "true" : "false";
  return std::to_string(t.int_values(i));
}

int ValueCount(const spec::TensorProto& t) {
  return t.string_values_size() + t.float_values_size() + t.int_values_size();
}

// The values of dims [dim, rank) starting at value *next, as nested lists.
std::string PrintValues(const spec::TensorProto& t, int dim, int* next) {
  if (dim == t.shape_size()) return *next < ValueCount(t) ? PrintValue(t, (*next)++) : "?";
  std::string out = "[";
  for (int64_t i = 0; i < t.shape(dim); ++i) out += (i > 0 ? ", " : "") + PrintValues(t, dim + 1, next);
  return out + "]";
}

std::string PrintConstant(const spec::TensorProto& t) {
  int next = 0;
  const std::string values = PrintValues(t, 0, &next);
  // Literals that carry their own dtype: untyped numbers, strings, bool scalars.
  const bool self_typed = t.dtype().empty() || t.dtype() == "string" || (t.dtype() == "bool" && t.shape_size() == 0);
  return self_typed ? values : t.dtype() + "(" + values + ")";
}

std::string Print(const spec::Expression& e, int parent_precedence);

std::string PrintCall(const spec::Expression::Call& call) {
  const ExpressionOpInfo* info = FindExpressionOp(call.op());
  if (info == nullptr) return "<unknown op " + std::to_string(call.op()) + ">";
  std::string out = std::string(info->name) + "(";
  int first = 0;
  if (call.op() == spec::Expression::CONCAT) {
    out += std::to_string(call.axis());
    first = -1;
  }
  for (int i = 0; i < call.args_size(); ++i) {
    out += (i > 0 || first < 0 ? ", " : "") + Print(call.args(i), 0);
  }
  if (call.op() == spec::Expression::CAST) out += ", " + call.dtype();
  if (call.op() == spec::Expression::SLICE) {
    out += ", " + std::to_string(call.axis()) + ", " + std::to_string(call.begin());
    if (call.has_end()) out += ", " + std::to_string(call.end());
  }
  return out + ")";
}

std::string Print(const spec::Expression& e, int parent_precedence) {
  switch (e.node_case()) {
    case spec::Expression::kComponent: return PrintComponentName(e.component());
    case spec::Expression::kConstant: {
      // A negative literal reads as a prefix minus: parenthesise it where one would be.
      std::string out = PrintConstant(e.constant());
      const int precedence = out.starts_with('-') ? 7 : 8;
      return precedence < parent_precedence || (precedence == 7 && parent_precedence == 7) ? "(" + out + ")" : out;
    }
    case spec::Expression::kText: return "(" + e.text() + ")";
    case spec::Expression::NODE_NOT_SET: return "<empty>";
    case spec::Expression::kCall: break;
  }
  const spec::Expression::Call& call = e.call();
  const ExpressionOpInfo* info = FindExpressionOp(call.op());
  if (info == nullptr || info->symbol.empty() || call.args_size() != info->min_args) return PrintCall(call);
  const int precedence = info->precedence;
  std::string out;
  if (info->min_args == 1) {
    const std::string_view space = info->symbol == "not" ? " " : "";
    // The operand of a prefix minus is parenthesised when it is a constant
    // or another minus, so that "-(1)" and "-(-x)" read back as written.
    const bool tight = call.args(0).has_constant() || (call.args(0).has_call() && call.args(0).call().op() == spec::Expression::NEG);
    const std::string operand = Print(call.args(0), precedence + (tight ? 2 : 0));
    out = std::string(info->symbol) + std::string(space) + operand;
  } else {
    // Left-associative, except comparisons, which do not chain.
    const bool chains = precedence != 4;
    out = Print(call.args(0), chains ? precedence : precedence + 1) + " " + std::string(info->symbol) + " " +
          Print(call.args(1), precedence + 1);
  }
  return precedence < parent_precedence ? "(" + out + ")" : out;
}

}  // namespace

std::string PrintComponentName(std::string_view name) {
  if (IsPlainIdentifier(name)) return std::string(name);
  std::string out = "`";
  for (const char c : name) {
    if (c == '`' || c == '\\') out += '\\';
    out += c;
  }
  return out + "`";
}

std::string PrintExpression(const spec::Expression& expression) { return Print(expression, 0); }

}  // namespace sluice
