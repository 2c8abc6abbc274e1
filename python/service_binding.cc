#include "sluice/python/service_binding.h"

#include <pybind11/stl.h>

#include <algorithm>
#include <chrono>
#include <cmath>

#include "sluice/dataset/pipeline_spec_io.h"
#include "sluice/python/dataset_binding.h"
#include "sluice/python/errors.h"
#include "sluice/python/gil.h"
#include "sluice/service/service_dataset.h"

namespace sluice::python {

namespace py = pybind11;

void RegisterService(py::module_& m) {
  // spec: a pipeline spec's text, or its binary form with spec_binary; None
  // with a dataset_id.
  m.def("from_service",
        [](const std::string& address, const std::optional<py::bytes>& spec, bool spec_binary,
           const std::string& dataset_id, const std::string& job_name, const std::string& processing_mode,
           int64_t consumer_index, int64_t num_consumers, const std::string& token_file, bool zstd,
           double timeout_seconds, std::optional<uint64_t> seed) {
          service::ServiceOptions options{.address = address,
                                          .dataset_id = dataset_id,
                                          .job_name = job_name,
                                          .processing_mode =
                                              ValueOrThrow(service::ParseProcessingMode(processing_mode)),
                                          .consumer_index = consumer_index,
                                          .num_consumers = num_consumers,
                                          .token_file = token_file,
                                          .compression = zstd ? service::COMPRESSION_ZSTD : service::COMPRESSION_NONE,
                                          .seed = seed};
          // Checked > 0 by the caller; at most a year, so that it converts.
          options.timeout = std::chrono::milliseconds(
              static_cast<int64_t>(std::ceil(std::min(timeout_seconds, 365.0 * 86400) * 1000)));
          if (spec.has_value()) {
            const std::string text = *spec;
            options.spec = ValueOrThrow(spec_binary ? ParseSpecBinary(text) : ParseSpecText(text));
          }
          Result<DatasetPtr> dataset = WithoutGil([&] { return service::MakeServiceDataset(std::move(options)); });
          return PyDataset{ValueOrThrow(std::move(dataset))};
        });
}

}  // namespace sluice::python
