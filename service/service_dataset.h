// from_service: a source dataset whose elements come from the data service
// (a dispatcher and its workers), so that a local pipeline continues from
// it (prefetch, prefetch to device) as from any source.
//
//   SLUICE_ASSIGN_OR_RETURN(DatasetPtr batches, MakeServiceDataset({
//       .address = "dispatcher-host:5050", .spec = spec,
//       .processing_mode = service::ProcessingMode::kDistributedEpoch}));
//
// Making the dataset asks the dispatcher for the spec's element spec (and
// registers the spec). Each iterator is one job (or joins the named one) on
// its first GetNext and reads from every worker of the job at once; it drops
// the elements it already holds by (split id, index in split), tells the
// dispatcher which splits it holds whole, and keeps reading from the other
// workers when one dies: every split's elements arrive exactly once, in
// split order, splits in the order workers deliver them. It ends when the
// dispatcher reports every split held. Save/Restore keep the splits and
// element indices consumed; a restored iterator reads a fresh job that
// skips the finished splits and drops what it consumed of the others.
// Thread safety: the dataset is immutable; an iterator is used by one
// thread at a time (its own threads read the workers).
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "sluice/dataset/dataset.h"
#include "sluice/dataset/pipeline.h"
#include "sluice/dataset/pipeline_spec.pb.h"
#include "sluice/service/processing_mode.h"
#include "sluice/service/protocol.h"
#include "sluice/service/service.pb.h"

namespace sluice::service {

struct ServiceOptions {
  std::string address;                 // the dispatcher's host:port
  std::optional<spec::Pipeline> spec;  // the pipeline to run, or:
  std::string dataset_id;              // a dataset registered before
  std::string job_name;                // empty: an anonymous job per iterator
  ProcessingMode processing_mode = ProcessingMode::kDistributedEpoch;
  // Coordinated reads: this consumer's index among num_consumers (0: not
  // coordinated). Each round of a split gives one element to each consumer.
  int64_t consumer_index = 0;
  int64_t num_consumers = 0;
  int64_t num_shards = 0;  // static_sharding; 0: the number of live workers
  // The shared secret's file; empty: SLUICE_SERVICE_TOKEN, else none.
  std::string token_file;
  // How workers send element payloads: COMPRESSION_ZSTD trades their CPU
  // (and this process's) for fewer bytes on a slow link.
  Compression compression = COMPRESSION_NONE;
  // Credit granted to each worker (service/credit.h). Elements unset:
  // kDefaultCreditElements, or kSharedJobCreditElements for a shared job
  // read without coordination, whose consumers take its splits first come,
  // first served (a worker queues for a consumer what its credit lets go
  // at once, and a wide window would let one consumer take a small job's
  // every split before the others ask).
  uint64_t credit_bytes = kDefaultCreditBytes;
  std::optional<uint64_t> credit_elements;
  // A GetNext that sees no element and no answer from the dispatcher for
  // this long fails with Unavailable.
  std::chrono::milliseconds timeout{60000};
  std::chrono::milliseconds heartbeat_interval{100};
  // Where the jobs' randomness comes from (distributed_epoch and
  // static_sharding): each iterator's job draws its shuffles anew, as each
  // epoch of a local pipeline does, from this seed and the count of the
  // dataset's iterators made before it. Unset: the spec's pipeline seed if
  // it has one, else a random seed per dataset. Ops the spec gives a seed
  // repeat their orders from run to run whatever this is.
  std::optional<uint64_t> seed;
};

Result<DatasetPtr> MakeServiceDataset(ServiceOptions options);
// Pipeline(MakeServiceDataset(options)): Pipeline lives in dataset/, which
// does not know the service.
Pipeline FromService(ServiceOptions options);

}  // namespace sluice::service
