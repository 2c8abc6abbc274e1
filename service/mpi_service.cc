#include "sluice/service/mpi_service.h"

#include <unistd.h>

#include <thread>

#include "sluice/service/address.h"

namespace sluice::service {
namespace {

// A step's outcome as one rank sends it: '+' and a value, or '-' and an
// error message.
std::string Report(const Status& status, const std::string& value) {
  return status.ok() ? StrCat("+", value) : StrCat("-", status.message());
}
bool IsSuccess(const std::string& report) { return !report.empty() && report[0] == '+'; }
std::string ReportText(const std::string& report) { return report.empty() ? "" : report.substr(1); }

bool IsWildcardHost(const std::string& host) { return host == "0.0.0.0" || host == "::"; }

// The host this rank's peers dial to reach what it binds at `host`.
Result<std::string> ReachableHost(const std::string& host) {
  if (!IsWildcardHost(host)) return host;
  char name[256] = {};
  if (gethostname(name, sizeof(name) - 1) != 0) {
    return InternalError("gethostname, to advertise a server bound to ", host, ": ", std::strerror(errno));
  }
  return std::string(name);
}

}  // namespace

Status MpiService::StartDispatcher(const MpiServiceOptions& options) {
  SLUICE_ASSIGN_OR_RETURN(dispatcher_, Dispatcher::Start({.host = options.host,
                                                          .port = options.dispatcher_port,
                                                          .token = options.token,
                                                          .allow_roots = options.allow_roots,
                                                          .splits = options.splits}));
  SLUICE_ASSIGN_OR_RETURN(dataset_id_, dispatcher_->RegisterDataset(options.spec));
  SLUICE_ASSIGN_OR_RETURN(const std::string host, ReachableHost(options.host));
  dispatcher_address_ = HostPort{.host = host, .port = dispatcher_->port()}.ToString();
  return OkStatus();
}

Status MpiService::CollectWorkers(const std::vector<std::string>& reports, const MpiServiceOptions& options) {
  for (size_t rank = 1; rank < reports.size(); ++rank) {
    if (!IsSuccess(reports[rank])) {
      return UnavailableError("MPI rank ", rank, " could not start its worker: ", ReportText(reports[rank]));
    }
    worker_addresses_.push_back(ReportText(reports[rank]));
  }
  // Registered workers count when a job is made (static sharding's shard
  // count), so the service is announced only once all are there.
  const auto deadline = std::chrono::steady_clock::now() + options.registration_timeout;
  while (dispatcher_->num_workers() < worker_addresses_.size()) {
    if (std::chrono::steady_clock::now() > deadline) {
      return DeadlineExceededError(dispatcher_->num_workers(), " of ", worker_addresses_.size(),
                                   " workers registered with the dispatcher within ",
                                   options.registration_timeout.count(), " ms");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return OkStatus();
}

Result<std::unique_ptr<MpiService>> MpiService::Start(MpiWorld& world, MpiServiceOptions options) {
  if (world.size() < 2) {
    return FailedPreconditionError(
        "--mpi needs at least 2 MPI ranks (rank 0 the dispatcher, the others workers), and this process is "
        "alone in its MPI world: start it with mpirun -np N (N >= 2), or drop --mpi");
  }
  std::unique_ptr<MpiService> service(new MpiService());
  // Step 1: the dispatcher's address, from rank 0 to all.
  std::string dispatcher_report;
  if (world.rank() == 0) {
    const Status started = service->StartDispatcher(options);
    dispatcher_report = Report(started, service->dispatcher_address_);
  }
  SLUICE_ASSIGN_OR_RETURN(dispatcher_report, world.Broadcast(dispatcher_report));
  if (!IsSuccess(dispatcher_report)) {
    return UnavailableError("MPI rank 0 could not start the dispatcher: ", ReportText(dispatcher_report));
  }
  service->dispatcher_address_ = ReportText(dispatcher_report);

  // Step 2: a worker on every other rank, its address (or error) to rank 0.
  std::string worker_report;
  if (world.rank() != 0) {
    Result<std::string> host = ReachableHost(options.host);
    Result<std::unique_ptr<Worker>> worker =
        host.ok() ? Worker::Start({.dispatcher_address = service->dispatcher_address_,
                                   .host = options.host,
                                   .advertised_host = *host,
                                   .token = options.token,
                                   .allow_roots = options.allow_roots})
                  : Result<std::unique_ptr<Worker>>(host.status());
    if (worker.ok()) service->worker_ = *std::move(worker);
    worker_report = Report(worker.status(), worker.ok() ? service->worker_->address() : "");
  }
  SLUICE_ASSIGN_OR_RETURN(const std::vector<std::string> reports, world.Gather(worker_report));

  // Step 3: rank 0's verdict, once every worker registered, to all.
  std::string verdict;
  if (world.rank() == 0) verdict = Report(service->CollectWorkers(reports, options), "");
  SLUICE_ASSIGN_OR_RETURN(verdict, world.Broadcast(verdict));
  if (!IsSuccess(verdict)) {
    return UnavailableError(world.rank() == 0 ? "" : "the service did not start: ", ReportText(verdict));
  }
  return service;
}

void MpiService::Stop() {
  if (worker_ != nullptr) worker_->Stop();
  if (dispatcher_ != nullptr) dispatcher_->Stop();
}

}  // namespace sluice::service
