#include "sluice/service/rpc_channel.h"

namespace sluice::service {

Status StatusFromErrorFrame(const Error& error) {
  const uint32_t code = error.code();
  if (code == 0 || code > static_cast<uint32_t>(StatusCode::kUnauthenticated)) {
    return InternalError("peer reported error code ", code, ": ", error.message());
  }
  return Status(static_cast<StatusCode>(code), error.message());
}

Frame ErrorFrame(const Status& status, uint64_t call_id) {
  Frame frame;
  frame.set_call_id(call_id);
  frame.mutable_error()->set_code(static_cast<uint32_t>(status.code()));
  frame.mutable_error()->set_message(status.message());
  return frame;
}

RpcChannel::RpcChannel(IoThread& io, std::string address, ConnectOptions options)
    : io_(io), address_(std::move(address)), options_(std::move(options)) {}

Result<Frame> RpcChannel::Call(Frame request, std::chrono::milliseconds timeout) {
  std::lock_guard<std::mutex> lock(mu_);
  if (connection_ == nullptr || !connection_->closed().ok()) {
    ConnectOptions options = options_;
    options.timeout = std::min(options.timeout, timeout);
    Result<std::shared_ptr<Connection>> connection = Connect(io_, address_, options);
    if (!connection.ok()) return connection.status();
    connection_ = *std::move(connection);
  }
  const uint64_t call_id = next_call_id_++;
  request.set_call_id(call_id);
  const Clock::time_point deadline = DeadlineAfter(timeout);
  Status failure = connection_->SendBlocking(std::move(request), timeout);
  while (failure.ok()) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    Result<ReceivedFrame> answer = connection_->ReceiveBlocking(std::max(left, std::chrono::milliseconds(1)));
    if (!answer.ok()) {
      failure = answer.status();
      break;
    }
    if (answer->frame.call_id() != call_id) continue;  // the answer to a call that timed out
    if (answer->frame.has_error()) return StatusFromErrorFrame(answer->frame.error());
    return std::move(answer->frame);
  }
  // A late answer must not be taken for the next call's: start afresh.
  connection_->Close();
  connection_.reset();
  return failure.WithContext(StrCat("calling ", address_));
}

void RpcChannel::Close() {
  std::lock_guard<std::mutex> lock(mu_);
  if (connection_ != nullptr) connection_->Close();
  connection_.reset();
}

}  // namespace sluice::service
