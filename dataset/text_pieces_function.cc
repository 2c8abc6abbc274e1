#include "sluice/dataset/text_pieces_function.h"

#include "sluice/dataset/component_target.h"
#include "sluice/tfrecord/example_schema.h"

namespace sluice {
namespace {

class PiecesFunction final : public ElementFunction {
 public:
  PiecesFunction(std::string component, std::string name, PiecesLayout layout, PiecesKernelFn kernel,
                 WriteSpecFn write_spec)
      : target_(std::move(component), ComponentTarget::WhenEmpty::kOnly),
        name_(std::move(name)),
        layout_(std::move(layout)),
        kernel_(std::move(kernel)),
        write_spec_(std::move(write_spec)) {}

  std::string name() const override { return name_; }
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
    std::vector<ComponentSpec> components(input.components().begin(), input.components().begin() + i);
    components.push_back({in.name, layout_.values_dtype, PartialShape{-1}});
    for (const std::string& companion : layout_.companions) {
      components.push_back({StrCat(base, "/", companion), DType::kInt64, PartialShape{-1}});
    }
    if (vector) components.push_back({StrCat(base, kRowLengthsSuffix), DType::kInt64, in.shape});
    components.insert(components.end(), input.components().begin() + i + 1, input.components().end());
    ElementSpec output(std::move(components));
    SLUICE_RETURN_IF_ERROR(CheckDistinctNames(name_, output));
    auto apply = [name = name_, arity = input.size(), i, vector, kernel = kernel_,
                  context = StrCat(name_, ": component ", base)](Element element) -> Result<Element> {
      SLUICE_RETURN_IF_ERROR(CheckComponentCount(name, arity, element));
      Result<Pieces> pieces = kernel(element[i]);
      if (!pieces.ok()) return pieces.status().WithContext(context);
      Element out;
      out.components.reserve(arity + pieces->flat.size() + 1);
      out.components.insert(out.components.end(), element.components.begin(), element.components.begin() + i);
      for (Tensor& t : pieces->flat) out.components.push_back(std::move(t));
      if (vector) out.components.push_back(std::move(pieces->row_lengths));
      out.components.insert(out.components.end(), element.components.begin() + i + 1, element.components.end());
      return out;
    };
    return BoundElementFunction{.output_spec = std::move(output), .apply = std::move(apply), .row_wise = false};
  }
  Status ToSpec(spec::ElementFunction* out) const override {
    write_spec_(target_.component(), out);
    return OkStatus();
  }

 private:
  const ComponentTarget target_;
  const std::string name_;
  const PiecesLayout layout_;
  const PiecesKernelFn kernel_;
  const WriteSpecFn write_spec_;
};

}  // namespace

ElementFunctionPtr MakePiecesFunction(std::string component, std::string name, PiecesLayout layout,
                                      PiecesKernelFn kernel, WriteSpecFn write_spec) {
  return std::make_shared<PiecesFunction>(std::move(component), std::move(name), std::move(layout),
                                          std::move(kernel), std::move(write_spec));
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
