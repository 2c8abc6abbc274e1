#include "sluice/model/layer.h"

#include "sluice/model/dense.h"
#include "sluice/model/dropout_layer.h"
#include "sluice/model/embedding.h"
#include "sluice/model/masked_mean_pooling.h"
#include "sluice/model/model.pb.h"

namespace sluice {

Result<std::unique_ptr<Layer>> LayerFromConfig(const model::LayerConfig& config) {
  switch (config.kind_case()) {
    case model::LayerConfig::kDense: {
      const model::DenseConfig& dense = config.dense();
      if (dense.units() <= 0 || dense.units() > kMaxLayerUnits) {
        return InvalidArgumentError("Dense '", config.name(), "': units must be in [1, ", kMaxLayerUnits, "], got ",
                                    dense.units());
      }
      const DenseOptions defaults;
      Activation activation = defaults.activation;
      if (!dense.activation().empty()) {
        SLUICE_ASSIGN_OR_RETURN(activation, ParseActivation(dense.activation()));
      }
      Initializer initializer = defaults.kernel_initializer;
      if (!dense.kernel_initializer().empty()) {
        SLUICE_ASSIGN_OR_RETURN(initializer, ParseInitializer(dense.kernel_initializer()));
      }
      return std::unique_ptr<Layer>(std::make_unique<Dense>(
          config.name(), DenseOptions{.units = dense.units(), .activation = activation,
                                      .use_bias = dense.has_use_bias() ? dense.use_bias() : defaults.use_bias,
                                      .kernel_initializer = initializer}));
    }
    case model::LayerConfig::kEmbedding:
      if (config.embedding().input_dim() <= 0 || config.embedding().output_dim() <= 0 ||
          config.embedding().output_dim() > kMaxLayerUnits ||
          config.embedding().input_dim() > kMaxLayerParameters / config.embedding().output_dim()) {
        return InvalidArgumentError("Embedding '", config.name(), "': dims must be > 0, with output_dim <= ",
                                    kMaxLayerUnits, " and input_dim * output_dim <= ", kMaxLayerParameters, ", got ",
                                    config.embedding().input_dim(), " x ", config.embedding().output_dim());
      }
      return std::unique_ptr<Layer>(std::make_unique<Embedding>(
          config.name(), EmbeddingOptions{config.embedding().input_dim(), config.embedding().output_dim()}));
    case model::LayerConfig::kDropout:
      if (!(config.dropout().rate() >= 0 && config.dropout().rate() < 1)) {
        return InvalidArgumentError("Dropout '", config.name(), "': rate must be in [0, 1)");
      }
      return std::unique_ptr<Layer>(std::make_unique<DropoutLayer>(config.name(), config.dropout().rate()));
    case model::LayerConfig::kMaskedMeanPooling:
      return std::unique_ptr<Layer>(std::make_unique<MaskedMeanPooling>(config.name()));
    case model::LayerConfig::KIND_NOT_SET: break;
  }
  return InvalidArgumentError("layer '", config.name(), "' has no kind set");
}

}  // namespace sluice
