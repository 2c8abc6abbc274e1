#include "sluice/model/embedding.h"

#include "sluice/model/initializers.h"
#include "sluice/model/model.pb.h"
#include "sluice/ops/embedding_lookup.h"

namespace sluice {

Embedding::Embedding(std::string name, EmbeddingOptions options) : Layer(std::move(name)), options_(options) {
  SLUICE_CHECK(options_.input_dim > 0 && options_.output_dim > 0)
      << "Embedding " << this->name() << ": input_dim and output_dim must be > 0";
}

Result<LayerInput> Embedding::Build(std::span<const LayerInput> inputs, std::mt19937_64& rng) {
  const LayerInput& input = inputs[0];
  if ((input.dtype != DType::kInt32 && input.dtype != DType::kInt64) || input.shape.rank() + 1 > kMaxRank) {
    return InvalidArgumentError("Embedding '", name(), "' expects int32 or int64 ids, got ", input.dtype,
                                input.shape);
  }
  table_.emplace(name() + "/embeddings",
                 Initialize(Initializer::kUniform, Shape{options_.input_dim, options_.output_dim}, rng));
  Shape output = input.shape;
  std::vector<int64_t> dims(output.dims().begin(), output.dims().end());
  dims.push_back(options_.output_dim);
  return LayerInput{DType::kFloat32, Shape(dims)};
}

Result<Tensor> Embedding::Call(std::span<const Tensor> inputs, bool) {
  return EmbeddingLookup(table_->value(), inputs[0]);
}

std::vector<Variable*> Embedding::variables() {
  if (!table_) return {};
  return {&*table_};
}

void Embedding::ToConfig(model::LayerConfig* config) const {
  config->set_name(name());
  config->mutable_embedding()->set_input_dim(options_.input_dim);
  config->mutable_embedding()->set_output_dim(options_.output_dim);
}

}  // namespace sluice
