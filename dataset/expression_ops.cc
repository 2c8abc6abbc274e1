#include "sluice/dataset/expression_ops.h"

#include <array>

namespace sluice {
namespace {

using E = spec::Expression;

constexpr std::array kOps = {
    ExpressionOpInfo{E::ADD, "add", "+", 5, 2, 2},
    ExpressionOpInfo{E::SUB, "sub", "-", 5, 2, 2},
    ExpressionOpInfo{E::MUL, "mul", "*", 6, 2, 2},
    ExpressionOpInfo{E::DIV, "div", "/", 6, 2, 2},
    ExpressionOpInfo{E::MOD, "mod", "%", 6, 2, 2},
    ExpressionOpInfo{E::NEG, "neg", "-", 7, 1, 1},
    ExpressionOpInfo{E::EQUAL, "equal", "==", 4, 2, 2},
    ExpressionOpInfo{E::NOT_EQUAL, "not_equal", "!=", 4, 2, 2},
    ExpressionOpInfo{E::LESS, "less", "<", 4, 2, 2},
    ExpressionOpInfo{E::LESS_EQUAL, "less_equal", "<=", 4, 2, 2},
    ExpressionOpInfo{E::GREATER, "greater", ">", 4, 2, 2},
    ExpressionOpInfo{E::GREATER_EQUAL, "greater_equal", ">=", 4, 2, 2},
    ExpressionOpInfo{E::AND, "logical_and", "and", 2, 2, 2},
    ExpressionOpInfo{E::OR, "logical_or", "or", 1, 2, 2},
    ExpressionOpInfo{E::NOT, "logical_not", "not", 3, 1, 1},
    ExpressionOpInfo{E::CAST, "cast", "", 0, 1, 1},
    ExpressionOpInfo{E::ABS, "abs", "", 0, 1, 1},
    ExpressionOpInfo{E::MIN, "min", "", 0, 2, 2},
    ExpressionOpInfo{E::MAX, "max", "", 0, 2, 2},
    ExpressionOpInfo{E::CLIP, "clip", "", 0, 3, 3},
    ExpressionOpInfo{E::EXP, "exp", "", 0, 1, 1},
    ExpressionOpInfo{E::LOG, "log", "", 0, 1, 1},
    ExpressionOpInfo{E::SQRT, "sqrt", "", 0, 1, 1},
    ExpressionOpInfo{E::FLOOR, "floor", "", 0, 1, 1},
    ExpressionOpInfo{E::ROUND, "round", "", 0, 1, 1},
    ExpressionOpInfo{E::WHERE, "where", "", 0, 3, 3},
    ExpressionOpInfo{E::SHAPE, "shape", "", 0, 1, 1},
    ExpressionOpInfo{E::SIZE, "size", "", 0, 1, 1},
    ExpressionOpInfo{E::LENGTH, "length", "", 0, 1, 1},
    ExpressionOpInfo{E::SLICE, "slice", "", 0, 1, 1},
    ExpressionOpInfo{E::CONCAT, "concat", "", 0, 1, -1},
    ExpressionOpInfo{E::STRING_LENGTH, "strlen", "", 0, 1, 1},
};

}  // namespace

const ExpressionOpInfo* FindExpressionOp(ExpressionOp op) {
  for (const ExpressionOpInfo& info : kOps) {
    if (info.op == op) return &info;
  }
  return nullptr;
}

const ExpressionOpInfo* FindExpressionFunction(std::string_view name) {
  for (const ExpressionOpInfo& info : kOps) {
    if (info.name == name) return &info;
  }
  return nullptr;
}

const ExpressionOpInfo* FindInfixOp(std::string_view symbol) {
  for (const ExpressionOpInfo& info : kOps) {
    if (info.symbol == symbol && info.max_args == 2) return &info;
  }
  return nullptr;
}

}  // namespace sluice
