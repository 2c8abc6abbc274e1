// The parity cases of the CUDA kernels, shared by the GoogleTest suite
// (tests/ops/cuda_kernels_test.cc) and the toolkit-only GPU check
// (gpu_check/gpu_check.cc): every op with a CUDA kernel on random inputs
// (never all zeros) with a stated tolerance, run on a device and brought
// back to the host. Float32 elementwise kernels within 1e-5 (relative),
// reductions, GEMMs and row kernels within 1e-4 (their sums run in another
// order), float64 within 1e-12, everything else exactly.
#pragma once

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "sluice/executor/device_copy.h"
#include "sluice/ops/op_registry.h"
#include "sluice/ops/run_op.h"

namespace sluice::testing {

struct ParityCase {
  std::string label;
  std::string op;
  std::vector<Tensor> inputs;  // on the host
  OpAttrs attrs;
  double tolerance = 1e-5;  // relative, for float outputs
};

inline std::mt19937& Rng() {
  static std::mt19937 rng(20261130);
  return rng;
}

// Uniform in [low, high), away from 0 by at least 0.05 when the range spans it.
template <typename T = float>
Tensor Random(const Shape& shape, double low = -2, double high = 2) {
  std::uniform_real_distribution<double> uniform(low, high);
  std::vector<T> values(shape.NumElements());
  for (T& v : values) {
    double x = uniform(Rng());
    if (std::abs(x) < 0.05) x = x < 0 ? -0.05 : 0.05;
    v = static_cast<T>(x);
  }
  return Tensor::FromVector(values, shape);
}

template <typename T>
Tensor RandomIndices(const Shape& shape, int64_t limit) {
  std::uniform_int_distribution<int64_t> uniform(0, limit - 1);
  std::vector<T> values(shape.NumElements());
  for (T& v : values) v = static_cast<T>(uniform(Rng()));
  return Tensor::FromVector(values, shape);
}

// 0/1 mask with a 1 in every row but the last (an empty row is a case too).
inline Tensor RandomMask(int64_t rows, int64_t steps) {
  std::bernoulli_distribution coin(0.6);
  std::vector<float> mask(rows * steps);
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t t = 0; t < steps; ++t) mask[r * steps + t] = r + 1 < rows && (t == 0 || coin(Rng())) ? 1.f : 0.f;
  }
  return Tensor::FromVector(mask, Shape{rows, steps});
}

inline std::vector<ParityCase> Cases() {
  std::vector<ParityCase> cases;
  auto add = [&](std::string label, std::string op, std::vector<Tensor> inputs, OpAttrs attrs = {},
                 double tolerance = 1e-5) {
    cases.push_back({std::move(label), std::move(op), std::move(inputs), std::move(attrs), tolerance});
  };
  for (const char* op : {"add", "sub", "mul", "div"}) {
    add(std::string(op) + " same shape", op, {Random({64, 33}), Random({64, 33})});
    add(std::string(op) + " broadcast", op, {Random({4, 1, 5}), Random({3, 1})});
    add(std::string(op) + " float64", op, {Random<double>({7, 9}), Random<double>({9})}, {}, 1e-12);
  }
  for (const char* op : {"neg", "relu", "sigmoid", "tanh", "exp"}) add(op, op, {Random({1000})});
  add("sigmoid large inputs", "sigmoid", {Random({1000}, -60, 60)});
  add("log", "log", {Random({1000}, 0.1, 5)});
  add("log float64", "log", {Random<double>({100}, 0.1, 5)}, {}, 1e-12);
  for (const char* op : {"relu_grad", "sigmoid_grad", "tanh_grad"}) add(op, op, {Random({513}), Random({513}, -1, 1)});
  add("bias_add", "bias_add", {Random({50, 17}), Random({17})});
  add("bias_add rank 3", "bias_add", {Random({3, 4, 5}), Random({5})});
  for (DType to : {DType::kInt32, DType::kInt64, DType::kUInt8, DType::kBool, DType::kFloat16, DType::kBFloat16,
                   DType::kFloat64}) {
    add(std::string("cast float32 to ") + std::string(DTypeName(to)), "cast", {Random({300}, -300, 300)},
        {{"dtype", to}});
  }
  add("cast int64 to float32", "cast", {RandomIndices<int64_t>({100}, 1 << 30)}, {{"dtype", DType::kFloat32}});
  add("cast float64 to float32", "cast", {Random<double>({100})}, {{"dtype", DType::kFloat32}});
  add("concat axis 1", "concat", {Random({4, 2, 3}), Random({4, 5, 3}), Random({4, 1, 3})}, {{"axis", int64_t{1}}});
  add("concat axis -1", "concat", {Random({6, 2}), Random({6, 3})}, {{"axis", int64_t{-1}}});
  add("concat_slice", "concat_slice", {Random({4, 8, 3})},
      {{"axis", int64_t{1}}, {"begin", int64_t{2}}, {"size", int64_t{3}}});
  add("sparse cross-entropy", "sparse_softmax_cross_entropy_with_logits",
      {RandomIndices<int64_t>({32}, 10), Random({32, 10}, -5, 5)}, {}, 1e-4);
  add("sparse cross-entropy int32 labels, wide rows", "sparse_softmax_cross_entropy_with_logits",
      {RandomIndices<int32_t>({8}, 3000), Random({8, 3000}, -5, 5)}, {}, 1e-4);
  add("sparse cross-entropy grad", "sparse_softmax_cross_entropy_with_logits_grad",
      {RandomIndices<int64_t>({32}, 10), Random({32, 10}, -5, 5), Random({32})}, {}, 1e-4);
  add("sigmoid cross-entropy", "sigmoid_cross_entropy_with_logits", {Random({40, 7}, 0, 1), Random({40, 7}, -8, 8)});
  add("sigmoid cross-entropy grad", "sigmoid_cross_entropy_with_logits_grad",
      {Random({40, 7}, 0, 1), Random({40, 7}, -8, 8), Random({40, 7})});
  add("mean squared error", "mean_squared_error", {Random({16, 9}), Random({16, 9})}, {}, 1e-4);
  add("mean squared error grad", "mean_squared_error_grad", {Random({16, 9}), Random({16, 9}), Random({16})});
  add("dropout", "dropout", {Random({3000})}, {{"rate", 0.3}, {"seed", int64_t{7}}});
  add("dropout rate 0", "dropout", {Random({100})}, {{"rate", 0.0}, {"seed", int64_t{1}}});
  add("embedding_lookup", "embedding_lookup", {Random({20, 6}), RandomIndices<int32_t>({5, 3}, 20)});
  add("embedding_lookup_grad (repeated ids)", "embedding_lookup_grad",
      {RandomIndices<int64_t>({5, 3}, 4), Random({5, 3, 6})}, {{"num_rows", int64_t{20}}}, 1e-5);
  add("ones_like float32", "ones_like", {Random({10})});
  add("ones_like bfloat16", "ones_like", {Tensor::Allocate(DType::kBFloat16, Shape{10})});
  add("zeros_like int32", "zeros_like", {RandomIndices<int32_t>({10}, 9)});
  add("masked_mean", "masked_mean", {Random({4, 5, 6}), RandomMask(4, 5)}, {}, 1e-5);
  add("masked_mean_grad", "masked_mean_grad", {RandomMask(4, 5), Random({4, 6})});
  for (bool ta : {false, true}) {
    for (bool tb : {false, true}) {
      add("matmul " + std::to_string(ta) + std::to_string(tb), "matmul",
          {Random(ta ? Shape{19, 37} : Shape{37, 19}), Random(tb ? Shape{23, 19} : Shape{19, 23})},
          {{"transpose_a", ta}, {"transpose_b", tb}}, 1e-4);
    }
  }
  add("matmul empty inner dimension", "matmul", {Random({3, 0}), Random({0, 4})},
      {{"transpose_a", false}, {"transpose_b", false}});
  add("matmul large", "matmul", {Random({256, 512}), Random({512, 128})},
      {{"transpose_a", false}, {"transpose_b", false}}, 1e-4);
  add("matmul float64", "matmul", {Random<double>({33, 17}), Random<double>({33, 12})},
      {{"transpose_a", true}, {"transpose_b", false}}, 1e-12);
  const std::vector<std::pair<std::vector<int64_t>, bool>> reductions = {
      {{}, false}, {{0}, false}, {{1}, true}, {{0, 2}, false}, {{-1}, true}};
  for (const auto& [axes, keep_dims] : reductions) {
    for (const char* op : {"sum", "mean"}) {
      add(std::string(op) + " axes " + std::to_string(axes.size()), op, {Random({6, 7, 8})},
          {{"axes", axes}, {"keep_dims", keep_dims}}, 1e-4);
    }
  }
  add("sum over rows (bias gradient)", "sum", {Random({3000, 40})},
      {{"axes", std::vector<int64_t>{0}}, {"keep_dims", false}}, 1e-4);
  add("sum over columns (many outputs)", "sum", {Random({3000, 40})},
      {{"axes", std::vector<int64_t>{1}}, {"keep_dims", false}}, 1e-4);
  add("broadcast_to", "broadcast_to", {Random({3, 1})}, {{"shape", std::vector<int64_t>{2, 3, 4}}});
  add("reshape", "reshape", {Random({6, 4})}, {{"shape", std::vector<int64_t>{3, 8}}});
  for (const char* op : {"softmax", "log_softmax"}) {
    add(op, op, {Random({16, 37}, -5, 5)}, {}, 1e-4);
    add(std::string(op) + " wide rows", op, {Random({4, 2000}, -5, 5)}, {}, 1e-4);
  }
  add("softmax_grad", "softmax_grad", {Random({16, 37}), Random({16, 37}, 0, 1)}, {}, 1e-4);
  add("log_softmax_grad", "log_softmax_grad", {Random({16, 37}), Random({16, 37}, -4, -0.1)}, {}, 1e-4);
  return cases;
}

// Every element: |gpu - cpu| <= tolerance * (1 + |cpu|) for floats; equal
// otherwise. Empty when they match, else what differs (the first few).
inline std::string CompareOutputs(const Tensor& cpu, const Tensor& gpu, double tolerance) {
  if (cpu.dtype() != gpu.dtype() || cpu.shape() != gpu.shape()) {
    return StrCat("GPU output is ", gpu.dtype(), gpu.shape(), ", CPU output ", cpu.dtype(), cpu.shape());
  }
  if (cpu.dtype() != DType::kFloat32 && cpu.dtype() != DType::kFloat64) {
    return cpu.Equals(gpu) ? "" : StrCat("GPU ", gpu.DebugString(), " vs CPU ", cpu.DebugString());
  }
  std::string differences;
  int reported = 0;
  for (int64_t i = 0; i < cpu.NumElements() && reported < 5; ++i) {
    const double a = cpu.dtype() == DType::kFloat32 ? cpu.data<float>()[i] : cpu.data<double>()[i];
    const double b = gpu.dtype() == DType::kFloat32 ? gpu.data<float>()[i] : gpu.data<double>()[i];
    if (std::isnan(a) && std::isnan(b)) continue;
    if (!(std::abs(a - b) <= tolerance * (1 + std::abs(a)))) {
      differences += StrCat("element ", i, " is ", b, " on the GPU and ", a, " on the CPU; ");
      ++reported;
    }
  }
  return differences;
}

inline Result<std::vector<Tensor>> RunOn(Device device, const ParityCase& c) {
  std::vector<Tensor> inputs;
  for (const Tensor& input : c.inputs) {
    SLUICE_ASSIGN_OR_RETURN(inputs.emplace_back(), ToDevice(input, device));
  }
  SLUICE_ASSIGN_OR_RETURN(std::vector<Tensor> outputs, RunOp(OpRegistry::Global().Get(c.op), inputs, c.attrs));
  for (Tensor& output : outputs) {
    if (!(output.device() == device)) return InternalError("output on ", output.device().ToString());
    SLUICE_ASSIGN_OR_RETURN(output, ToHost(output));
  }
  return outputs;
}

}  // namespace sluice::testing
