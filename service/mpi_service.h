// MpiService: one rank's share of a data service that mpirun starts as a
// whole (`mpirun -np N sluice serve --mpi SPEC`): rank 0 runs the
// dispatcher with the spec registered, ranks 1..N-1 run a worker each.
//
// Start is collective, in three steps over the MpiWorld: rank 0 starts the
// dispatcher and broadcasts the address it bound; every other rank starts a
// worker that registers there, and rank 0 gathers each worker's address or
// error; once every worker has registered (or one failed) rank 0
// broadcasts the outcome, so that every rank returns from Start with the
// same verdict. A rank that fails says which rank and why.
//
// Hosts: every rank binds `host`; when that is a wildcard (0.0.0.0, ::),
// a rank tells its peers its host name instead, so ranks on several hosts
// reach each other.
// Thread safety: Start and Stop on the thread that joined the MpiWorld;
// the accessors from any thread.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sluice/dataset/pipeline_spec.pb.h"
#include "sluice/service/dispatcher.h"
#include "sluice/service/mpi_world.h"
#include "sluice/service/worker.h"

namespace sluice::service {

struct MpiServiceOptions {
  spec::Pipeline spec;             // registered on the dispatcher
  std::string host = "127.0.0.1";  // every rank's bind address
  uint16_t dispatcher_port = 0;    // 0: any free port; workers always take any
  std::optional<std::string> token;
  std::vector<std::string> allow_roots = {"."};
  SplitOptions splits;  // the dispatcher's
  // How long rank 0 waits for every worker to register.
  std::chrono::milliseconds registration_timeout{30000};
};

class MpiService {
 public:
  // REQUIRES: every rank of `world` calls it, with the same options.
  static Result<std::unique_ptr<MpiService>> Start(MpiWorld& world, MpiServiceOptions options);
  ~MpiService() { Stop(); }

  bool is_dispatcher() const { return dispatcher_ != nullptr; }
  // The dispatcher's address, on every rank.
  const std::string& dispatcher_address() const { return dispatcher_address_; }
  // Rank 0: the registered spec's dataset id, and the workers' addresses
  // by rank; empty on the other ranks.
  const std::string& dataset_id() const { return dataset_id_; }
  const std::vector<std::string>& worker_addresses() const { return worker_addresses_; }

  // Stops this rank's role; returns within 1 s. Idempotent.
  void Stop();

 private:
  MpiService() = default;
  // Rank 0's part of each step.
  Status StartDispatcher(const MpiServiceOptions& options);
  Status CollectWorkers(const std::vector<std::string>& reports, const MpiServiceOptions& options);

  std::unique_ptr<Dispatcher> dispatcher_;
  std::unique_ptr<Worker> worker_;
  std::string dispatcher_address_;
  std::string dataset_id_;
  std::vector<std::string> worker_addresses_;
};

}  // namespace sluice::service
