#include "sluice/dataset/functions.h"

namespace sluice {
namespace {

Status NotSerializable(std::string_view what) {
  return UnimplementedError(what, " holds a C++ callable and cannot be written as a pipeline spec; "
                            "use a built-in function to make the graph serializable");
}

class LambdaFunction final : public ElementFunction {
 public:
  LambdaFunction(std::function<Result<Element>(Element)> fn, LambdaFunctionOptions options)
      : fn_(std::move(fn)), options_(std::move(options)) {}

  std::string name() const override { return "lambda"; }
  Result<BoundElementFunction> Bind(const ElementSpec& input) const override {
    return BoundElementFunction{.output_spec = options_.output_spec.value_or(input),
                                .apply = fn_,
                                .row_wise = options_.row_wise};
  }
  Status ToSpec(spec::ElementFunction*) const override { return NotSerializable("map's function"); }

 private:
  const std::function<Result<Element>(Element)> fn_;
  const LambdaFunctionOptions options_;
};

class LambdaPredicate final : public Predicate {
 public:
  explicit LambdaPredicate(BoundPredicate fn) : fn_(std::move(fn)) {}

  std::string name() const override { return "lambda"; }
  Result<BoundPredicate> Bind(const ElementSpec&) const override { return fn_; }
  Status ToSpec(spec::Predicate*) const override { return NotSerializable("filter's predicate"); }

 private:
  const BoundPredicate fn_;
};

class LambdaDatasetFunction final : public DatasetFunction {
 public:
  LambdaDatasetFunction(std::function<Result<DatasetPtr>(const Element&)> fn, ElementSpec spec)
      : fn_(std::move(fn)), output_spec_(std::move(spec)) {}

  std::string name() const override { return "lambda"; }
  Result<ElementSpec> OutputSpec(const ElementSpec&) const override { return output_spec_; }
  Result<DatasetPtr> Apply(const Element& element) const override { return fn_(element); }
  Status ToSpec(spec::Pipeline*) const override { return NotSerializable("interleave's function"); }

 private:
  const std::function<Result<DatasetPtr>(const Element&)> fn_;
  const ElementSpec output_spec_;
};

}  // namespace

ElementFunctionPtr MakeLambdaFunction(std::function<Result<Element>(Element)> fn,
                                      LambdaFunctionOptions options) {
  return std::make_shared<LambdaFunction>(std::move(fn), std::move(options));
}

PredicatePtr MakeLambdaPredicate(std::function<Result<bool>(const Element&)> fn) {
  return std::make_shared<LambdaPredicate>(std::move(fn));
}

DatasetFunctionPtr MakeLambdaDatasetFunction(std::function<Result<DatasetPtr>(const Element&)> fn,
                                             ElementSpec output_spec) {
  return std::make_shared<LambdaDatasetFunction>(std::move(fn), std::move(output_spec));
}

}  // namespace sluice
