// sluice dispatcher | worker | serve: the data service's roles
// (service/dispatcher.h, service/worker.h) as long-running commands. Each
// blocks SIGINT and SIGTERM before it starts a thread, so every thread
// inherits the mask, and the main thread waits for them in sigwait: no work
// happens in a signal handler, and Stop runs on the main thread (it returns
// within 1 s).
#include <csignal>
#include <iostream>

#include "sluice/dataset/pipeline_spec_io.h"
#include "sluice/service/address.h"
#include "sluice/service/auth.h"
#include "sluice/service/dispatcher.h"
#include "sluice/service/worker.h"
#include "sluice/tools/commands.h"
#include "sluice/tools/flags.h"
#include "sluice/tools/stdout_writer.h"

namespace sluice::cli {
namespace {

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

// Prints a line and flushes it, so that a parent reading a pipe sees it now.
Status Announce(const std::string& line) {
  std::cout << line << '\n';
  return FlushStdout();
}

Result<uint16_t> PortFlag(const CommandArgs& args, const std::string& flag) {
  SLUICE_ASSIGN_OR_RETURN(const int64_t port, CountFlag(args, flag, 0, 0, 65535));
  return static_cast<uint16_t>(port);
}

std::vector<std::string> AllowRoots(const CommandArgs& args) {
  auto it = args.repeated.find("--allow-root");
  return it == args.repeated.end() ? std::vector<std::string>{"."} : it->second;
}

}  // namespace

Status DispatcherCommand(const CommandArgs& args) {
  if (!args.flags.contains("--work-dir")) return InvalidArgumentError("--work-dir is required");
  if (!args.flags.contains("--port")) return InvalidArgumentError("--port is required");
  SLUICE_ASSIGN_OR_RETURN(const sigset_t signals, BlockStopSignals());
  SLUICE_ASSIGN_OR_RETURN(const uint16_t port, PortFlag(args, "--port"));
  SLUICE_ASSIGN_OR_RETURN(std::optional<std::string> token, service::LoadToken(FlagOr(args, "--token-file")));
  SLUICE_ASSIGN_OR_RETURN(std::unique_ptr<service::Dispatcher> dispatcher,
                          service::Dispatcher::Start({.host = FlagOr(args, "--bind", "127.0.0.1"),
                                                      .port = port,
                                                      .work_dir = args.flags.at("--work-dir"),
                                                      .token = std::move(token),
                                                      .allow_roots = AllowRoots(args)}));
  SLUICE_RETURN_IF_ERROR(Announce(StrCat("dispatcher listening on ", dispatcher->address())));
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
  SLUICE_RETURN_IF_ERROR(Announce(StrCat("worker listening on ", worker->address())));
  WaitForStopSignal(signals);
  worker->Stop();
  return OkStatus();
}

Status ServeCommand(const CommandArgs& args) {
  SLUICE_ASSIGN_OR_RETURN(const sigset_t signals, BlockStopSignals());
  SLUICE_ASSIGN_OR_RETURN(const uint16_t port, PortFlag(args, "--port"));
  SLUICE_ASSIGN_OR_RETURN(const spec::Pipeline spec, ReadSpecFile(args.positional[0]));
  SLUICE_ASSIGN_OR_RETURN(std::optional<std::string> token, service::LoadToken(FlagOr(args, "--token-file")));
  const std::vector<std::string> roots = AllowRoots(args);
  SLUICE_ASSIGN_OR_RETURN(std::unique_ptr<service::Dispatcher> dispatcher,
                          service::Dispatcher::Start({.port = port, .token = token, .allow_roots = roots}));
  SLUICE_ASSIGN_OR_RETURN(const std::string dataset_id, dispatcher->RegisterDataset(spec));
  SLUICE_ASSIGN_OR_RETURN(
      std::unique_ptr<service::Worker> worker,
      service::Worker::Start({.dispatcher_address = dispatcher->address(), .token = token, .allow_roots = roots}));
  SLUICE_RETURN_IF_ERROR(
      Announce(StrCat("dispatcher listening on ", dispatcher->address(), "\ndataset ", dataset_id)));
  WaitForStopSignal(signals);
  worker->Stop();
  dispatcher->Stop();
  return OkStatus();
}

}  // namespace sluice::cli
