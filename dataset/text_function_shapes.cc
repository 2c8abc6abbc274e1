#include "sluice/dataset/text_function_shapes.h"

#include <optional>

#include "sluice/dataset/component_target.h"
#include "sluice/ops/row_lengths.h"
#include "sluice/tfrecord/example_schema.h"

namespace sluice {
namespace {

// What both shapes hold: the component, the name, how to write the spec,
// and the bytes the kernel holds (BoundElementFunction::held_bytes).
class TextFunction : public ElementFunction {
 public:
  TextFunction(std::string component, std::string name, WriteSpecFn write_spec, int64_t held_bytes)
      : target_(std::move(component), ComponentTarget::WhenEmpty::kOnly),
        name_(std::move(name)),
        held_bytes_(held_bytes),
        write_spec_(std::move(write_spec)) {}

  std::string name() const final { return name_; }
  Status ToSpec(spec::ElementFunction* out) const final {
    write_spec_(target_.component(), out);
    return OkStatus();
  }

 protected:
  const ComponentTarget target_;
  const std::string name_;
  const int64_t held_bytes_;

 private:
  const WriteSpecFn write_spec_;
};

class ElementwiseFunction final : public TextFunction {
 public:
  ElementwiseFunction(std::string component, std::string name, DType out_dtype, ElementwiseKernelFn kernel,
                      WriteSpecFn write_spec, int64_t held_bytes)
      : TextFunction(std::move(component), std::move(name), std::move(write_spec), held_bytes),
        out_dtype_(out_dtype),
        kernel_(std::move(kernel)) {}

  Result<BoundElementFunction> Bind(const ElementSpec& input) const override {
    SLUICE_ASSIGN_OR_RETURN(std::vector<size_t> indices, target_.Resolve(name_, input));
    const size_t i = indices.front();
    if (input[i].dtype != DType::kString) {
      return InvalidArgumentError(name_, ": component ", input.DisplayName(i), " is ", input[i].dtype,
                                  input[i].shape, "; expected strings");
    }
    std::vector<ComponentSpec> components = input.components();
    components[i].dtype = out_dtype_;
    return BoundElementFunction{.output_spec = ElementSpec(std::move(components)),
                                .apply = TransformAt(name_, input, indices, kernel_),
                                .row_wise = true,
                                .held_bytes = held_bytes_};
  }

 private:
  const DType out_dtype_;
  const ElementwiseKernelFn kernel_;
};

class PiecesFunction final : public TextFunction {
 public:
  PiecesFunction(std::string component, std::string name, PiecesLayout layout, PiecesKernelFn kernel,
                 WriteSpecFn write_spec, int64_t held_bytes)
      : TextFunction(std::move(component), std::move(name), std::move(write_spec), held_bytes),
        layout_(std::move(layout)),
        kernel_(std::move(kernel)) {}

  Result<BoundElementFunction> Bind(const ElementSpec& input) const override {
    SLUICE_ASSIGN_OR_RETURN(std::vector<size_t> indices, target_.Resolve(name_, input));
    const size_t i = indices.front();
    const ComponentSpec& in = input[i];
    if (in.dtype != DType::kString || !in.shape.known_rank() || in.shape.rank() > 1) {
      return InvalidArgumentError(name_, ": component ", input.DisplayName(i), " is ", in.dtype, in.shape,
                                  "; expected a string scalar or a [N] vector of strings");
    }
    const bool vector = in.shape.rank() == 1;
    const std::string base = input.DisplayName(i);
    // Strings that are already rows of a batch (values + row lengths, from a
    // splitter over a batch): their pieces are rows of the same batch, and
    // the row lengths count pieces (merge_dims of words and their pieces).
    std::optional<size_t> rows;
    if (Result<size_t> found = input.IndexOf(StrCat(base, kRowLengthsSuffix)); vector && found.ok()) {
      const ComponentSpec& lengths = input[*found];
      if (lengths.dtype != DType::kInt64 || !lengths.shape.known_rank() || lengths.shape.rank() != 1) {
        return InvalidArgumentError(name_, ": component ", base, "'s row lengths ", lengths.name, " are ",
                                    lengths.dtype, lengths.shape, "; expected an int64 vector");
      }
      rows = *found;
    }
    std::vector<ComponentSpec> components(input.components().begin(), input.components().begin() + i);
    components.push_back({in.name, layout_.values_dtype, PartialShape{-1}});
    for (const std::string& companion : layout_.companions) {
      components.push_back({StrCat(base, "/", companion), DType::kInt64, PartialShape{-1}});
    }
    if (vector && !rows) components.push_back({StrCat(base, kRowLengthsSuffix), DType::kInt64, in.shape});
    components.insert(components.end(), input.components().begin() + i + 1, input.components().end());
    ElementSpec output(std::move(components));
    SLUICE_RETURN_IF_ERROR(CheckDistinctNames(name_, output));
    // Where the input's row lengths land among the outputs.
    const size_t flat_count = 1 + layout_.companions.size();
    const std::optional<size_t> rows_out =
        rows ? std::optional<size_t>(*rows < i ? *rows : *rows + flat_count - 1) : std::nullopt;
    auto apply = [name = name_, arity = input.size(), i, vector, rows, rows_out, kernel = kernel_,
                  context = StrCat(name_, ": component ", base)](Element element) -> Result<Element> {
      SLUICE_RETURN_IF_ERROR(CheckComponentCount(name, arity, element));
      Result<Pieces> pieces = kernel(element[i]);
      if (!pieces.ok()) return pieces.status().WithContext(context);
      const int64_t piece_count = pieces->flat.front().dim(0);
      Element out;
      out.components.reserve(arity + pieces->flat.size() + 1);
      out.components.insert(out.components.end(), element.components.begin(), element.components.begin() + i);
      for (Tensor& t : pieces->flat) out.components.push_back(std::move(t));
      if (vector && !rows) out.components.push_back(std::move(pieces->row_lengths));
      out.components.insert(out.components.end(), element.components.begin() + i + 1, element.components.end());
      if (rows) {
        Result<Tensor> merged = MergeRowLengths(name, element[*rows], pieces->row_lengths, piece_count);
        if (!merged.ok()) return merged.status().WithContext(context);
        out.components[*rows_out] = std::move(*merged);
      }
      return out;
    };
    return BoundElementFunction{
        .output_spec = std::move(output), .apply = std::move(apply), .row_wise = false, .held_bytes = held_bytes_};
  }

 private:
  const PiecesLayout layout_;
  const PiecesKernelFn kernel_;
};

}  // namespace

ElementFunctionPtr MakeElementwiseFunction(std::string component, std::string name, DType out_dtype,
                                           ElementwiseKernelFn kernel, WriteSpecFn write_spec, int64_t held_bytes) {
  return std::make_shared<ElementwiseFunction>(std::move(component), std::move(name), out_dtype, std::move(kernel),
                                               std::move(write_spec), held_bytes);
}

ElementFunctionPtr MakePiecesFunction(std::string component, std::string name, PiecesLayout layout,
                                      PiecesKernelFn kernel, WriteSpecFn write_spec, int64_t held_bytes) {
  return std::make_shared<PiecesFunction>(std::move(component), std::move(name), std::move(layout),
                                          std::move(kernel), std::move(write_spec), held_bytes);
}

Status CheckDistinctNames(std::string_view fn_name, const ElementSpec& output) {
  for (size_t a = 0; a < output.size(); ++a) {
    for (size_t b = a + 1; b < output.size(); ++b) {
      if (!output[a].name.empty() && output[a].name == output[b].name) {
        return InvalidArgumentError(fn_name, ": the output would have two components named '", output[a].name,
                                    "'; rename the input's first");
      }
    }
  }
  return OkStatus();
}

std::string TextArgumentsPrefix(const std::string& component) {
  return ComponentTarget(component, ComponentTarget::WhenEmpty::kOnly).Prefix(", ");
}

}  // namespace sluice
