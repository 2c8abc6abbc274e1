// sluice dispatcher | worker | serve: the data service's roles
// (service/dispatcher.h, service/worker.h; under mpirun,
// service/mpi_service.h) as long-running commands. Each
// blocks SIGINT and SIGTERM before it starts a thread, so every thread
// inherits the mask, and the main thread waits for them in sigwait: no work
// happens in a signal handler, and Stop runs on the main thread (it returns
// within 1 s).
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>

#include "sluice/dataset/pipeline_spec_io.h"
#include "sluice/service/address.h"
#include "sluice/service/auth.h"
#include "sluice/service/dispatcher.h"
#include "sluice/service/mpi_service.h"
#include "sluice/service/mpi_world.h"
#include "sluice/service/worker.h"
#include "sluice/tools/commands.h"
#include "sluice/tools/flags.h"
#include "sluice/tools/stdout_writer.h"

namespace sluice::cli {
namespace {

// The largest --journal-compaction-bytes: 1 TiB.
constexpr int64_t kMaxJournalCompactionBytes = int64_t{1} << 40;
// The largest --rows-per-split: 2^62.
constexpr int64_t kMaxRowsPerSplit = int64_t{1} << 62;

// SIGINT and SIGTERM, blocked in the calling thread and so in every thread
// it starts from now on.
Result<sigset_t> BlockStopSignals() {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  if (const int error = pthread_sigmask(SIG_BLOCK, &signals, nullptr); error != 0) {
    return InternalError("blocking SIGINT and SIGTERM: ", std::strerror(error));
  }
  return signals;
}

// Waits for SIGINT or SIGTERM.
void WaitForStopSignal(const sigset_t& signals) {
  int signal = 0;
  while (sigwait(&signals, &signal) != 0) {
  }
}

// Prints a role's lines and flushes them, so that a parent reading a pipe
// sees them now. Given a path, writes them there first (so that a reader of
// stdout finds the file too), to a temporary file renamed into place, so
// that a reader that sees the file sees all of it.
Status Announce(const std::string& lines, const std::string& address_file = "") {
  if (!address_file.empty()) {
    const std::string temporary = address_file + ".tmp";
    {
      std::ofstream out(temporary, std::ios::trunc);
      out << lines;
      out.close();
      if (!out) return InternalError("writing --address-file ", temporary, ": ", std::strerror(errno));
    }
    if (std::rename(temporary.c_str(), address_file.c_str()) != 0) {
      return InternalError("renaming ", temporary, " to ", address_file, ": ", std::strerror(errno));
    }
  }
  std::cout << lines;
  return FlushStdout();
}

// --rows-per-split, as the dispatcher's split options (0: automatic).
Result<service::SplitOptions> SplitFlags(const CommandArgs& args) {
  SLUICE_ASSIGN_OR_RETURN(const int64_t rows, CountFlag(args, "--rows-per-split", 0, 0, kMaxRowsPerSplit));
  return service::SplitOptions{.rows_per_split = rows};
}

Result<uint16_t> PortFlag(const CommandArgs& args, const std::string& flag) {
  SLUICE_ASSIGN_OR_RETURN(const int64_t port, CountFlag(args, flag, 0, 0, 65535));
  return static_cast<uint16_t>(port);
}

std::vector<std::string> AllowRoots(const CommandArgs& args) {
  auto it = args.repeated.find("--allow-root");
  return it == args.repeated.end() ? std::vector<std::string>{"."} : it->second;
}

// sluice serve --mpi: this process's rank of the service (service/mpi_service.h).
Status ServeUnderMpi(const sigset_t& signals, service::MpiServiceOptions options, const std::string& address_file) {
  // MPI is initialised after the signals are blocked, so that its threads
  // leave SIGINT and SIGTERM to sigwait too.
  SLUICE_ASSIGN_OR_RETURN(std::unique_ptr<service::MpiWorld> world, service::MpiWorld::Join());
  SLUICE_ASSIGN_OR_RETURN(std::unique_ptr<service::MpiService> service,
                          service::MpiService::Start(*world, std::move(options)));
  if (service->is_dispatcher()) {
    std::string lines = StrCat("dispatcher listening on ", service->dispatcher_address(), "\n");
    for (const std::string& worker : service->worker_addresses()) {
      lines += StrCat("worker listening on ", worker, "\n");
    }
    lines += StrCat("dataset ", service->dataset_id(), "\n");
    if (const Status announced = Announce(lines, address_file); !announced.ok()) {
      // The other ranks serve on: this one's exit without MPI_Finalize has
      // mpirun end them.
      world->LeaveWithoutFinalize();
      return announced;
    }
  }
  WaitForStopSignal(signals);
  service->Stop();
  world->LeaveWithoutFinalize();
  return OkStatus();
}

}  // namespace

Status DispatcherCommand(const CommandArgs& args) {
  if (!args.flags.contains("--work-dir")) return InvalidArgumentError("--work-dir is required");
  if (!args.flags.contains("--port")) return InvalidArgumentError("--port is required");
  SLUICE_ASSIGN_OR_RETURN(const sigset_t signals, BlockStopSignals());
  SLUICE_ASSIGN_OR_RETURN(const uint16_t port, PortFlag(args, "--port"));
  SLUICE_ASSIGN_OR_RETURN(
      const int64_t compaction_bytes,
      CountFlag(args, "--journal-compaction-bytes", service::DispatcherOptions{}.journal_compaction_bytes, 1,
                kMaxJournalCompactionBytes));
  SLUICE_ASSIGN_OR_RETURN(const service::SplitOptions splits, SplitFlags(args));
  SLUICE_ASSIGN_OR_RETURN(std::optional<std::string> token, service::LoadToken(FlagOr(args, "--token-file")));
  SLUICE_ASSIGN_OR_RETURN(std::unique_ptr<service::Dispatcher> dispatcher,
                          service::Dispatcher::Start({.host = FlagOr(args, "--bind", "127.0.0.1"),
                                                      .port = port,
                                                      .work_dir = args.flags.at("--work-dir"),
                                                      .journal_compaction_bytes = compaction_bytes,
                                                      .token = std::move(token),
                                                      .allow_roots = AllowRoots(args),
                                                      .splits = splits}));
  SLUICE_RETURN_IF_ERROR(Announce(StrCat("dispatcher listening on ", dispatcher->address(), "\n")));
  WaitForStopSignal(signals);
  dispatcher->Stop();
  return OkStatus();
}

Status WorkerCommand(const CommandArgs& args) {
  if (!args.flags.contains("--dispatcher")) return InvalidArgumentError("--dispatcher is required");
  SLUICE_ASSIGN_OR_RETURN(const sigset_t signals, BlockStopSignals());
  SLUICE_ASSIGN_OR_RETURN(const uint16_t port, PortFlag(args, "--port"));
  SLUICE_ASSIGN_OR_RETURN(std::optional<std::string> token, service::LoadToken(FlagOr(args, "--token-file")));
  SLUICE_ASSIGN_OR_RETURN(std::unique_ptr<service::Worker> worker,
                          service::Worker::Start({.dispatcher_address = args.flags.at("--dispatcher"),
                                                  .host = FlagOr(args, "--bind", "127.0.0.1"),
                                                  .port = port,
                                                  .advertised_host = FlagOr(args, "--advertise"),
                                                  .token = std::move(token),
                                                  .allow_roots = AllowRoots(args)}));
  SLUICE_RETURN_IF_ERROR(Announce(StrCat("worker listening on ", worker->address(), "\n")));
  WaitForStopSignal(signals);
  worker->Stop();
  return OkStatus();
}

Status ServeCommand(const CommandArgs& args) {
  SLUICE_ASSIGN_OR_RETURN(const sigset_t signals, BlockStopSignals());
  SLUICE_ASSIGN_OR_RETURN(const uint16_t port, PortFlag(args, "--port"));
  SLUICE_ASSIGN_OR_RETURN(spec::Pipeline spec, ReadSpecFile(args.positional[0]));
  SLUICE_ASSIGN_OR_RETURN(const service::SplitOptions splits, SplitFlags(args));
  SLUICE_ASSIGN_OR_RETURN(std::optional<std::string> token, service::LoadToken(FlagOr(args, "--token-file")));
  const std::string host = FlagOr(args, "--bind", "127.0.0.1");
  const std::vector<std::string> roots = AllowRoots(args);
  const std::string address_file = FlagOr(args, "--address-file");
  if (args.flags.contains("--mpi")) {
    return ServeUnderMpi(signals,
                         {.spec = std::move(spec),
                          .host = host,
                          .dispatcher_port = port,
                          .token = std::move(token),
                          .allow_roots = roots,
                          .splits = splits},
                         address_file);
  }
  SLUICE_ASSIGN_OR_RETURN(std::unique_ptr<service::Dispatcher> dispatcher,
                          service::Dispatcher::Start(
                              {.host = host, .port = port, .token = token, .allow_roots = roots, .splits = splits}));
  SLUICE_ASSIGN_OR_RETURN(const std::string dataset_id, dispatcher->RegisterDataset(spec));
  SLUICE_ASSIGN_OR_RETURN(std::unique_ptr<service::Worker> worker,
                          service::Worker::Start({.dispatcher_address = dispatcher->address(),
                                                  .host = host,
                                                  .token = token,
                                                  .allow_roots = roots}));
  SLUICE_RETURN_IF_ERROR(Announce(
      StrCat("dispatcher listening on ", dispatcher->address(), "\ndataset ", dataset_id, "\n"), address_file));
  WaitForStopSignal(signals);
  worker->Stop();
  dispatcher->Stop();
  return OkStatus();
}

}  // namespace sluice::cli
