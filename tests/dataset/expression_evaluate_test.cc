// A randomised differential test of the vectorised evaluator: random typed
// expressions over float32, int32 and bool components, evaluated once over
// whole tensors (and over runs when row-wise) and compared, value by value,
// with a scalar reference evaluator written here from the documented rules.
#include "sluice/dataset/expression_evaluate.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "sluice/dataset/expression_print.h"
#include "sluice/dataset/pipeline_spec.pb.h"

namespace sluice {
namespace {

using E = spec::Expression;

constexpr int64_t kWidth = 16;
enum class Type { kFloat, kInt, kBool };

ElementSpec Spec() {
  return ElementSpec{{"a", DType::kFloat32, Shape{kWidth}}, {"b", DType::kFloat32, Shape{kWidth}},
                     {"p", DType::kInt32, Shape{kWidth}},   {"q", DType::kInt32, Shape{kWidth}},
                     {"c", DType::kBool, Shape{kWidth}}};
}

// Random values: floats in quarters (with a NaN now and then), ints around 0
// and near the int32 limits, q never 0 (it is the only divisor).
Element RandomElement(std::mt19937& rng) {
  std::vector<float> a, b;
  std::vector<int32_t> p, q;
  std::vector<bool> c;
  std::uniform_int_distribution<int> quarter(-40, 40);
  std::uniform_int_distribution<int> small(-9, 9);
  for (int64_t i = 0; i < kWidth; ++i) {
    a.push_back(i == 3 ? std::numeric_limits<float>::quiet_NaN() : quarter(rng) / 4.0f);
    b.push_back(quarter(rng) / 4.0f);
    p.push_back(i == 5 ? std::numeric_limits<int32_t>::min() : i == 6 ? std::numeric_limits<int32_t>::max() : small(rng));
    const int divisor = small(rng);
    q.push_back(i == 7 ? -1 : divisor == 0 ? 1 : divisor);
    c.push_back(rng() % 2 == 0);
  }
  return Element{Tensor::FromVector(a), Tensor::FromVector(b), Tensor::FromVector(p), Tensor::FromVector(q),
                 Tensor::FromVector(c)};
}

E Component(std::string name) {
  E e;
  e.set_component(std::move(name));
  return e;
}
E Call(E::Op op, std::vector<E> args) {
  E e;
  e.mutable_call()->set_op(op);
  for (E& arg : args) *e.mutable_call()->add_args() = std::move(arg);
  return e;
}

class Generator {
 public:
  explicit Generator(uint32_t seed) : rng_(seed) {}

  E Make(Type type, int depth) {
    if (depth == 0 || Pick(4) == 0) return Leaf(type);
    switch (type) {
      case Type::kFloat: return MakeFloat(depth - 1);
      case Type::kInt: return MakeInt(depth - 1);
      case Type::kBool: return MakeBool(depth - 1);
    }
    return Leaf(type);
  }

 private:
  int Pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng_); }

  E Leaf(Type type) {
    switch (type) {
      case Type::kFloat: return Component(Pick(2) == 0 ? "a" : "b");
      case Type::kInt: return Component(Pick(2) == 0 ? "p" : "q");
      case Type::kBool: return Component("c");
    }
    return Component("c");
  }
  // An untyped literal: the right operand of a binary operator only.
  E Literal(Type type) {
    E e;
    if (type == Type::kFloat) {
      e.mutable_constant()->add_float_values(std::uniform_int_distribution<int>(-12, 12)(rng_) / 4.0);
    } else {
      e.mutable_constant()->add_int_values(std::uniform_int_distribution<int>(1, 5)(rng_));
    }
    return e;
  }
  E RightOperand(Type type, int depth) { return Pick(3) == 0 ? Literal(type) : Make(type, depth); }

  E MakeFloat(int d) {
    static constexpr E::Op kBinary[] = {E::ADD, E::SUB, E::MUL, E::DIV, E::MOD, E::MIN, E::MAX};
    static constexpr E::Op kUnary[] = {E::NEG, E::ABS, E::EXP, E::LOG, E::SQRT, E::FLOOR, E::ROUND};
    switch (Pick(5)) {
      case 0:
      case 1: return Call(kBinary[Pick(7)], {Make(Type::kFloat, d), RightOperand(Type::kFloat, d)});
      case 2: return Call(kUnary[Pick(7)], {Make(Type::kFloat, d)});
      case 3: return Call(E::WHERE, {Make(Type::kBool, d), Make(Type::kFloat, d), Make(Type::kFloat, d)});
      default: {
        E cast = Call(E::CAST, {Make(Type::kInt, d)});
        cast.mutable_call()->set_dtype("float32");
        return Pick(2) == 0 ? cast : Call(E::CLIP, {Make(Type::kFloat, d), Literal(Type::kFloat), Literal(Type::kFloat)});
      }
    }
  }
  E MakeInt(int d) {
    static constexpr E::Op kBinary[] = {E::ADD, E::SUB, E::MUL, E::MIN, E::MAX};
    switch (Pick(6)) {
      case 0:
      case 1: return Call(kBinary[Pick(5)], {Make(Type::kInt, d), RightOperand(Type::kInt, d)});
      case 2: return Call(Pick(2) == 0 ? E::DIV : E::MOD, {Make(Type::kInt, d), Pick(2) == 0 ? Component("q") : Literal(Type::kInt)});
      case 3: return Call(Pick(2) == 0 ? E::NEG : E::ABS, {Make(Type::kInt, d)});
      case 4: return Call(E::WHERE, {Make(Type::kBool, d), Make(Type::kInt, d), Make(Type::kInt, d)});
      default: {
        E cast = Call(E::CAST, {Make(Type::kFloat, d)});
        cast.mutable_call()->set_dtype("int32");
        return cast;
      }
    }
  }
  E MakeBool(int d) {
    static constexpr E::Op kCompare[] = {E::EQUAL, E::NOT_EQUAL, E::LESS, E::LESS_EQUAL, E::GREATER, E::GREATER_EQUAL};
    switch (Pick(4)) {
      case 0: return Call(kCompare[Pick(6)], {Make(Type::kFloat, d), RightOperand(Type::kFloat, d)});
      case 1: return Call(kCompare[Pick(6)], {Make(Type::kInt, d), RightOperand(Type::kInt, d)});
      case 2: return Call(Pick(2) == 0 ? E::AND : E::OR, {Make(Type::kBool, d), Make(Type::kBool, d)});
      default: return Call(E::NOT, {Make(Type::kBool, d)});
    }
  }

  std::mt19937 rng_;
};

// The scalar reference: value k of each node, one at a time.
struct Value {
  Type type;
  float f = 0;
  int32_t i = 0;
  bool b = false;
};

// volatile keeps each float operation rounded on its own, as the kernels
// round it (no fused multiply-add across nodes).
float Rounded(float v) {
  volatile float r = v;
  return r;
}

int32_t Wrapped(int64_t v) { return static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(v))); }

Value Reference(const E& e, const Element& element, int64_t k, const Value* partner = nullptr) {
  if (e.has_component()) {
    const std::string& n = e.component();
    const size_t index = n == "a" ? 0 : n == "b" ? 1 : n == "p" ? 2 : n == "q" ? 3 : 4;
    const Tensor& t = element[index];
    if (index < 2) return {Type::kFloat, t.data<float>()[k]};
    if (index < 4) return {Type::kInt, 0, t.data<int32_t>()[k]};
    return {Type::kBool, 0, 0, t.data<bool>()[k]};
  }
  if (e.has_constant()) {  // takes its partner's type
    if (partner->type == Type::kFloat) return {Type::kFloat, static_cast<float>(e.constant().float_values_size() ? e.constant().float_values(0) : e.constant().int_values(0))};
    return {Type::kInt, 0, static_cast<int32_t>(e.constant().int_values(0))};
  }
  const E::Call& call = e.call();
  const Value x = Reference(call.args(0), element, k);
  const auto arg = [&](int i) { return Reference(call.args(i), element, k, &x); };
  const float nan = std::numeric_limits<float>::quiet_NaN();
  switch (call.op()) {
    case E::ADD: return x.type == Type::kFloat ? Value{x.type, Rounded(x.f + arg(1).f)} : Value{x.type, 0, Wrapped(int64_t{x.i} + arg(1).i)};
    case E::SUB: return x.type == Type::kFloat ? Value{x.type, Rounded(x.f - arg(1).f)} : Value{x.type, 0, Wrapped(int64_t{x.i} - arg(1).i)};
    case E::MUL: return x.type == Type::kFloat ? Value{x.type, Rounded(x.f * arg(1).f)} : Value{x.type, 0, Wrapped(int64_t{x.i} * arg(1).i)};
    case E::DIV:
      if (x.type == Type::kFloat) return {x.type, Rounded(x.f / arg(1).f)};
      return {x.type, 0, Wrapped(int64_t{x.i} / arg(1).i)};  // in int64, min / -1 wraps to min
    case E::MOD:
      if (x.type == Type::kFloat) return {x.type, std::fmod(x.f, arg(1).f)};
      return {x.type, 0, static_cast<int32_t>(int64_t{x.i} % arg(1).i)};
    case E::MIN:
      if (x.type == Type::kFloat) return {x.type, std::isnan(x.f) || std::isnan(arg(1).f) ? nan : std::min(x.f, arg(1).f)};
      return {x.type, 0, std::min(x.i, arg(1).i)};
    case E::MAX:
      if (x.type == Type::kFloat) return {x.type, std::isnan(x.f) || std::isnan(arg(1).f) ? nan : std::max(x.f, arg(1).f)};
      return {x.type, 0, std::max(x.i, arg(1).i)};
    case E::CLIP: {
      const float low = arg(1).f, high = arg(2).f;
      const float lower_bounded = std::isnan(x.f) ? nan : std::max(x.f, low);
      return {x.type, std::isnan(lower_bounded) ? nan : std::min(lower_bounded, high)};
    }
    case E::NEG: return x.type == Type::kFloat ? Value{x.type, -x.f} : Value{x.type, 0, Wrapped(-int64_t{x.i})};
    case E::ABS: return x.type == Type::kFloat ? Value{x.type, std::fabs(x.f)} : Value{x.type, 0, Wrapped(std::abs(int64_t{x.i}))};
    case E::EXP: return {x.type, std::exp(x.f)};
    case E::LOG: return {x.type, std::log(x.f)};
    case E::SQRT: return {x.type, std::sqrt(x.f)};
    case E::FLOOR: return {x.type, std::floor(x.f)};
    case E::ROUND: return {x.type, std::nearbyint(x.f)};
    case E::CAST:
      if (call.dtype() == "float32") return {Type::kFloat, static_cast<float>(x.i)};
      return {Type::kInt, 0, ConvertValue<int32_t>(x.f)};
    case E::WHERE: {
      const Value a = arg(1), b = arg(2);
      return x.b ? a : b;
    }
    case E::AND: return {Type::kBool, 0, 0, x.b && arg(1).b};
    case E::OR: return {Type::kBool, 0, 0, x.b || arg(1).b};
    case E::NOT: return {Type::kBool, 0, 0, !x.b};
    default: break;
  }
  const Value y = arg(1);
  const auto compare = [&](auto l, auto r) {
    switch (call.op()) {
      case E::EQUAL: return l == r;
      case E::NOT_EQUAL: return l != r;
      case E::LESS: return l < r;
      case E::LESS_EQUAL: return l <= r;
      case E::GREATER: return l > r;
      default: return l >= r;
    }
  };
  return {Type::kBool, 0, 0, x.type == Type::kFloat ? compare(x.f, y.f) : compare(x.i, y.i)};
}

// Value k of `t` against the reference, NaN equal to NaN.
bool Matches(const Tensor& t, int64_t k, const Value& v) {
  switch (t.dtype()) {
    case DType::kFloat32: {
      const float got = t.data<float>()[k];
      return (std::isnan(got) && std::isnan(v.f)) || got == v.f;
    }
    case DType::kInt32: return t.data<int32_t>()[k] == v.i;
    case DType::kBool: return t.data<bool>()[k] == v.b;
    default: return false;
  }
}

TEST(ExpressionEvaluateTest, VectorisedMatchesScalarReference) {
  const ElementSpec spec = Spec();
  std::mt19937 values_rng(7);
  int checked = 0;
  int row_wise = 0;
  for (uint32_t seed = 0; seed < 400; ++seed) {
    Generator generator(seed);
    const E e = generator.Make(static_cast<Type>(seed % 3), 4);
    const std::string text = PrintExpression(e);
    Result<BoundExpression> bound = BindExpression(e, spec, "outputs[0]");
    ASSERT_TRUE(bound.ok()) << text << ": " << bound.status();
    const Element element = RandomElement(values_rng);
    Result<Tensor> value = EvaluateExpression(*bound, element);
    ASSERT_TRUE(value.ok()) << text << ": " << value.status();
    ASSERT_EQ(value->NumElements(), kWidth) << text;
    for (int64_t k = 0; k < kWidth; ++k) {
      const Value expected = Reference(e, element, k);
      ASSERT_TRUE(Matches(*value, k, expected))
          << text << " at " << k << ": got " << value->DebugString() << "; reference " << expected.f << " / "
          << expected.i << " / " << expected.b;
    }
    ++checked;
    // A run of three elements, evaluated at once, equals its elements' values.
    if (!IsRowWise(*bound, spec)) continue;
    ++row_wise;
    std::vector<Element> rows = {element, RandomElement(values_rng), RandomElement(values_rng)};
    Element run;
    for (size_t c = 0; c < spec.size(); ++c) {
      Tensor stacked = Tensor::Allocate(spec[c].dtype, Shape{3, kWidth});
      for (int64_t r = 0; r < 3; ++r) CopyIntoRows(rows[r][c], stacked, r);
      run.components.push_back(stacked);
    }
    Result<Tensor> run_value = EvaluateExpression(*bound, run);
    ASSERT_TRUE(run_value.ok()) << text << ": " << run_value.status();
    for (int64_t r = 0; r < 3; ++r) {
      Result<Tensor> row_value = EvaluateExpression(*bound, rows[r]);
      ASSERT_TRUE(row_value.ok());
      EXPECT_TRUE(run_value->Row(r).Equals(*row_value)) << text << ", row " << r;
    }
  }
  EXPECT_EQ(checked, 400);
  EXPECT_GT(row_wise, 300);
}

}  // namespace
}  // namespace sluice
