// C++ callables in a pipeline: a map with a declared output spec, a
// row-wise map, a filter, an interleave and a generator source. They run in-process only: such a
// graph refuses to be written as a pipeline spec, with an error naming the op.
#include <cstdio>

#include "sluice/dataset/pipeline.h"
#include "sluice/dataset/pipeline_spec_io.h"

using namespace sluice;

int main() {
  // map: a callable's output spec can't be traced, so declare it when it
  // differs from the input's (every output is checked against it).
  auto squares = Pipeline::Range(6).Map(
      [](Element e) -> Result<Element> {
        const int64_t v = e[0].scalar<int64_t>();
        return Element{Tensor::Scalar<int64_t>(v), Tensor::Scalar<double>(double(v) * v)};
      },
      {.output_spec = ElementSpec{{"n", DType::kInt64, Shape{}}, {"square", DType::kFloat64, Shape{}}}});

  // row_wise: the callable works on a run of elements stacked along a new
  // leading dimension as on one element, so map passes whole runs (the fast path).
  auto doubled = Pipeline::Range(6).Map(
      [](Element e) -> Result<Element> {
        Tensor out = e[0].Clone();
        for (int64_t i = 0; i < out.NumElements(); ++i) out.mutable_data<int64_t>()[i] *= 2;
        return Element{out};
      },
      {.row_wise = true});

  // filter and interleave: each element x opens range(x); two are open at a time.
  const ElementSpec int64_scalar{{"", DType::kInt64, Shape{}}};
  auto nested = Pipeline::Range({.start = 1, .stop = 5})
                    .Filter([](const Element& e) -> Result<bool> { return e[0].scalar<int64_t>() != 3; })
                    .Interleave([](const Element& e) { return Pipeline::Range(e[0].scalar<int64_t>()).Build(); },
                                int64_scalar, {.cycle_length = 2, .block_length = 1});

  // from_generator: each traversal starts a generator, called once per
  // element until it returns nullopt (here, lines of a table held in memory).
  const std::vector<std::string> table = {"ant", "bee", "cat"};
  auto start_rows = [table]() -> Result<Generator> {
    return Generator([table, row = size_t{0}]() mutable -> Result<std::optional<Element>> {
      if (row == table.size()) return std::nullopt;
      return Element{Tensor::Scalar(table[row++])};
    });
  };
  auto rows = Pipeline::FromGenerator({.start = start_rows, .element_spec = {{"name", DType::kString, Shape{}}}});

  for (const Pipeline* pipeline : {&squares, &doubled, &nested, &rows}) {
    auto elements = pipeline->Elements();
    for (const Element& element : elements) std::printf("%s ", element.DebugString().c_str());
    std::printf("\n");
    if (!elements.status().ok()) return std::printf("%s\n", elements.status().ToString().c_str()), 1;
  }
  Result<spec::Pipeline> spec = DatasetToSpec(**squares.Build());
  std::printf("as a spec: %s\n", spec.status().ToString().c_str());
  return spec.status().code() == StatusCode::kUnimplemented ? 0 : 1;
}
