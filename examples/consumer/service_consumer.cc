// A program built outside the Sluice tree against an installed Sluice
// (docs/install.md) that reads a pipeline through the data service: a
// dispatcher and a worker in this process, on loopback, serve range(10), and
// a FromService pipeline reads it back in batches of 4 and sums them.
// Prints "3 batches, sum 45, through the service".
#include <cstdint>
#include <cstdio>
#include <memory>

#include <sluice/dataset/pipeline.h>
#include <sluice/dataset/pipeline_spec_io.h>
#include <sluice/service/dispatcher.h>
#include <sluice/service/service_dataset.h>
#include <sluice/service/worker.h>

namespace {

int Fail(const sluice::Status& status) {
  std::fprintf(stderr, "%s\n", status.ToString().c_str());
  return 1;
}

}  // namespace

int main() {
  sluice::Result<sluice::spec::Pipeline> spec =
      sluice::DatasetToSpec(**sluice::Pipeline::Range(10).Build());
  if (!spec.ok()) return Fail(spec.status());

  auto dispatcher = sluice::service::Dispatcher::Start({});
  if (!dispatcher.ok()) return Fail(dispatcher.status());
  auto worker = sluice::service::Worker::Start({.dispatcher_address = (*dispatcher)->address()});
  if (!worker.ok()) return Fail(worker.status());

  int batches = 0;
  int64_t sum = 0;
  auto elements = sluice::service::FromService({.address = (*dispatcher)->address(), .spec = *std::move(spec)})
                      .Batch({.batch_size = 4})
                      .Elements();
  for (const sluice::Element& batch : elements) {
    const sluice::Tensor& values = batch.components[0];
    for (int64_t i = 0; i < values.NumElements(); ++i) sum += values.data<int64_t>()[i];
    ++batches;
  }
  if (!elements.status().ok()) return Fail(elements.status());
  std::printf("%d batches, sum %lld, through the service\n", batches, static_cast<long long>(sum));
  return 0;
}
