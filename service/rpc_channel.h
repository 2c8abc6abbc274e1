// RpcChannel: request/response calls from ordinary threads (a worker's
// heartbeat, a client's GetNext) to a data-service server, over one
// connection made on first use and made again after it fails. Requests and
// responses are Frames paired by call_id; a server answers a failed request
// with an Error frame, which Call returns as its status.
// Thread safety: Call and Close from any thread but the io thread; calls
// take turns on the one connection.
#pragma once

#include <chrono>
#include <memory>
#include <mutex>
#include <string>

#include "sluice/core/status.h"
#include "sluice/service/connect.h"
#include "sluice/service/connection.h"
#include "sluice/service/io_thread.h"

namespace sluice::service {

// The status an Error frame carries (Internal for a code this build does
// not know), and the Error frame of a failed request.
Status StatusFromErrorFrame(const Error& error);
Frame ErrorFrame(const Status& status, uint64_t call_id);

class RpcChannel {
 public:
  // REQUIRES: `io` outlives the channel.
  RpcChannel(IoThread& io, std::string address, ConnectOptions options);
  ~RpcChannel() { Close(); }

  // Sends `request` and waits at most `timeout` for its answer; a failed
  // connection is dropped, so the next call dials again.
  Result<Frame> Call(Frame request, std::chrono::milliseconds timeout);
  // Closes the connection; later calls dial again.
  void Close();
  const std::string& address() const { return address_; }

 private:
  IoThread& io_;
  const std::string address_;
  const ConnectOptions options_;
  std::mutex mu_;
  std::shared_ptr<Connection> connection_;  // GUARDED_BY(mu_)
  uint64_t next_call_id_ = 1;               // GUARDED_BY(mu_)
};

}  // namespace sluice::service
